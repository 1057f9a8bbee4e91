#include "project/project_validate.h"

#include "error.h"
#include "generators/registry.h"
#include "project/field_text.h"
#include "project/layer_costs.h"
#include "project/project_fields.h"

#include <algorithm>
#include <set>
#include <utility>

namespace stagecraft {

namespace {

std::string str(int value) {
    return std::to_string(value);
}

class Checker {
  public:
    explicit Checker(const Project& project) : m_p(project) {}

    std::vector<FieldProblem> run() {
        if (m_p.version != kProjectFormatVersion)
            add("stagecraft", "stagecraft = " + str(m_p.version) + ": this build handles format " +
                                  str(kProjectFormatVersion));
        for (const auto& field : projectFields())
            if (auto problem = fieldRangeProblem(field, field.get(m_p))) {
                m_outOfRange.insert(field.path);
                add(field.path, *problem);
            }
        checkModel();
        checkLayout();
        checkStageOverrides();
        checkLayerCosts();
        checkSchedules();
        return std::move(m_problems);
    }

  private:
    void add(std::string_view field, std::string message,
             std::initializer_list<std::string_view> reads = {}) {
        FieldProblem problem{std::string(field), std::move(message), {std::string(field)}};
        for (std::string_view f : reads)
            if (f != field) problem.fields.emplace_back(f);
        m_problems.push_back(std::move(problem));
    }
    bool ok(std::initializer_list<std::string_view> fields) const {
        return std::none_of(fields.begin(), fields.end(),
                            [&](std::string_view f) { return m_outOfRange.count(f); });
    }

    void checkModel() {
        const ModelConfig& m = m_p.model;
        if (ok({"model.hidden", "model.heads"}) && m.hidden % m.heads != 0)
            add("model.heads",
                "model.hidden = " + str(m.hidden) + " is not a multiple of model.heads = " + str(m.heads) +
                    " (each head gets hidden / heads dimensions)",
                {"model.hidden"});
    }

    void checkLayout() {
        const ParallelConfig& l = m_p.parallel;
        const ClusterConfig& c = m_p.cluster;
        if (ok({"model.heads", "parallel.tp"}) && m_p.model.heads % l.tp != 0)
            add("parallel.tp",
                "parallel.tp = " + str(l.tp) + " does not divide model.heads = " + str(m_p.model.heads) +
                    " (tensor parallelism splits the attention heads)",
                {"model.heads"});
        if (ok({"model.hidden", "parallel.tp"}) && m_p.model.hidden % l.tp != 0)
            add("parallel.tp",
                "parallel.tp = " + str(l.tp) + " does not divide model.hidden = " + str(m_p.model.hidden) +
                    " (tensor parallelism splits the weight matrices)",
                {"model.hidden"});
        if (ok({"parallel.tp", "cluster.gpus_per_node"}) && l.tp > c.gpusPerNode)
            add("parallel.tp",
                "parallel.tp = " + str(l.tp) +
                    ": tensor parallelism stays inside one node and needs tp <= "
                    "cluster.gpus_per_node = " +
                    str(c.gpusPerNode),
                {"cluster.gpus_per_node"});
        // The cluster's size matters only to the analytic cost model (which links a transfer
        // crosses); manual and unit costs time any pipeline on any cluster.
        if (m_p.costs.mode == CostMode::Analytic &&
            ok({"parallel.pp", "parallel.dp", "parallel.tp", "cluster.gpus_per_node", "cluster.nodes"})) {
            const long long needed = 1LL * l.pp * l.dp * l.tp;
            const long long available = 1LL * c.gpusPerNode * c.nodes;
            const long long nodes = (needed + c.gpusPerNode - 1) / c.gpusPerNode;
            if (needed > available)
                add("parallel.dp",
                    "parallel.pp × parallel.dp × parallel.tp = " + str(l.pp) + " × " + str(l.dp) + " × " +
                        str(l.tp) + " = " + std::to_string(needed) + " GPUs, but the cluster has " +
                        std::to_string(available) + " (cluster.gpus_per_node = " + str(c.gpusPerNode) +
                        " × cluster.nodes = " + str(c.nodes) +
                        ") and analytic costs place every GPU: set cluster.nodes = " + std::to_string(nodes) +
                        ", lower parallel.dp or parallel.tp, or use " + "costs.mode = manual or unit",
                    {"parallel.pp", "parallel.tp", "cluster.gpus_per_node", "cluster.nodes", "costs.mode"});
        }
    }

    void checkLayerCosts() {
        if (!ok({"costs.layers", "model.layers"})) return;
        if (auto problem = layerCoverageProblem(m_p.costs.layers, m_p.model.layers))
            add("costs.layers", *problem, {"model.layers"});
    }

    void checkStageOverrides() {
        if (!ok({"costs.stages", "parallel.pp"})) return;
        const int pp = m_p.parallel.pp;
        std::vector<int> firstEntry(std::size_t(pp), -1); // pp is in range: at most kMaxDevices
        const auto& stages = m_p.costs.stages;
        for (std::size_t i = 0; i < stages.size(); ++i) {
            const std::string entry =
                "costs.stages[" + std::to_string(i) + "].stage = " + str(stages[i].stage);
            if (stages[i].stage >= pp) {
                add("costs.stages",
                    entry + ": must be in 0.." + str(pp - 1) + " (parallel.pp = " + str(pp) + ")",
                    {"parallel.pp"});
                continue;
            }
            int& first = firstEntry[std::size_t(stages[i].stage)];
            if (first >= 0)
                add("costs.stages", entry + ": stage " + str(stages[i].stage) +
                                        " already has an override in costs.stages[" + str(first) + "]");
            else
                first = int(i);
        }
    }

    void checkSchedules() {
        if (!ok({"schedules"})) return;
        std::string valid;
        for (const auto& info : generators()) valid += (valid.empty() ? "" : ", ") + std::string(info.name);
        std::vector<std::pair<std::string_view, std::size_t>> seen; // canonical name, first index
        for (std::size_t i = 0; i < m_p.schedules.size(); ++i) {
            const std::string entry =
                "schedules[" + std::to_string(i) + "] = " + detail::quoted(m_p.schedules[i]);
            const GeneratorInfo* info = nullptr;
            try {
                info = &findGenerator(m_p.schedules[i]);
            } catch (const ValidationError&) {
                std::string message = entry;
                message += ": unknown schedule; valid names: ";
                message += valid;
                add("schedules", std::move(message));
                continue;
            }
            const auto it =
                std::find_if(seen.begin(), seen.end(), [&](const auto& s) { return s.first == info->name; });
            if (it != seen.end())
                add("schedules",
                    entry + ": listed twice (also schedules[" + std::to_string(it->second) + "])");
            else
                seen.emplace_back(info->name, i);
        }
    }

    const Project& m_p;
    std::set<std::string_view> m_outOfRange;
    std::vector<FieldProblem> m_problems;
};

} // namespace

std::vector<FieldProblem> findProjectProblems(const Project& project) {
    return Checker(project).run();
}

void validateProject(const Project& project) {
    const auto problems = findProjectProblems(project);
    if (problems.empty()) return;
    std::string message = problems.front().message;
    if (problems.size() > 1)
        message += " (and " + std::to_string(problems.size() - 1) + " more problem" +
                   (problems.size() > 2 ? "s" : "") + ")";
    throw ValidationError("project.field", problems.front().field, message);
}

} // namespace stagecraft
