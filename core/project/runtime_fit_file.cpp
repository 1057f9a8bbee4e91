#include "project/runtime_fit_file.h"

#include "error.h"
#include "file_io.h"
#include "json_failure.h"
#include "number_text.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdio>
#include <nlohmann/json.hpp>
#include <utility>

namespace stagecraft {

namespace {

using Json = nlohmann::json;
using OrderedJson = nlohmann::ordered_json;

constexpr std::size_t kMaxStages = 4096;
constexpr std::size_t kMaxSpread = 4096;

OrderedJson cost(double v) {
    return v < 0 ? OrderedJson(nullptr) : OrderedJson(v);
}

[[noreturn]] void bad(const std::string& field, const std::string& message) {
    throw ValidationError("fit.field", field, field + " " + message);
}

std::string shown(const Json& v) {
    std::string text = v.dump();
    return text.size() > 40 ? text.substr(0, 40) + "..." : text;
}

const Json& member(const Json& object, const std::string& key, const std::string& path) {
    if (!object.is_object()) bad(path, "= " + shown(object) + ": must be an object");
    const auto it = object.find(key);
    if (it == object.end()) bad(path + "." + key, "is missing");
    return *it;
}

/// A cost in µs: finite and >= 0, or null (not measured: -1) where `nullable`.
double readCost(const Json& v, const std::string& path, bool nullable) {
    if (v.is_null() && nullable) return -1;
    if (!v.is_number())
        bad(path, "= " + shown(v) + ": must be a number of µs" + (nullable ? " or null" : ""));
    const double d = v.get<double>();
    if (!std::isfinite(d) || d < 0) bad(path, "= " + shown(v) + ": must be finite and >= 0");
    return d;
}

int readCount(const Json& v, const std::string& path) {
    if (!v.is_number_integer() || v.get<long long>() < 0 || v.get<long long>() > (1 << 30))
        bad(path, "= " + shown(v) + ": must be a whole number 0..2^30");
    return int(v.get<long long>());
}

std::vector<double> readSpread(const Json& v, const std::string& path) {
    if (!v.is_array()) bad(path, "= " + shown(v) + ": must be an array of multipliers");
    if (v.size() > kMaxSpread) bad(path, "has " + std::to_string(v.size()) + " entries; at most 4096");
    std::vector<double> out;
    for (std::size_t i = 0; i < v.size(); ++i)
        out.push_back(readCost(v[i], path + "[" + std::to_string(i) + "]", false));
    for (std::size_t i = 1; i < out.size(); ++i)
        if (out[i] < out[i - 1])
            bad(path, "is not sorted at entry " + std::to_string(i) + ": quantiles ascend");
    return out;
}

std::string readString(const Json& v, const std::string& path) {
    if (!v.is_string()) bad(path, "= " + shown(v) + ": must be a string");
    return v.get<std::string>();
}

OrderedJson weightFactorsJson(const std::vector<double>& factors) {
    OrderedJson out = OrderedJson::array();
    for (const double f : factors) out.push_back(std::isfinite(f) ? OrderedJson(f) : OrderedJson());
    return out;
}

/// The weight factors and stage ranks (absent in files written before they were fitted: none).
void readWeightFactors(const Json& doc, RuntimeFitRecord& r, const std::string& prefix) {
    const auto at = [&](const std::string& name) { return prefix + name; };
    if (const auto it = doc.find("weight_factors"); it != doc.end()) {
        if (!it->is_array() || it->size() > kMaxStages)
            bad(at("weight_factors"), "= " + shown(*it) + ": must be an array of at most 4096 factors");
        for (std::size_t i = 0; i < it->size(); ++i) {
            const Json& v = (*it)[i];
            const std::string p = at("weight_factors[" + std::to_string(i) + "]");
            if (v.is_null()) {
                r.costs.weightFactors.push_back(NAN);
                continue;
            }
            if (!v.is_number() || !std::isfinite(v.get<double>()) || v.get<double>() <= 0 ||
                v.get<double>() > 1e3)
                bad(p, "= " + shown(v) + ": must be a positive number up to 1000 or null (not measured)");
            r.costs.weightFactors.push_back(v.get<double>());
        }
    }
    if (const auto it = doc.find("stage_ranks"); it != doc.end()) {
        if (!it->is_array() || it->size() > kMaxStages)
            bad(at("stage_ranks"), "= " + shown(*it) + ": must be an array of at most 4096 ranks");
        for (std::size_t i = 0; i < it->size(); ++i) {
            const Json& v = (*it)[i];
            if (!v.is_number_integer() || v.get<long long>() < -1 ||
                v.get<long long>() >= (long long)(kMaxStages))
                bad(at("stage_ranks[" + std::to_string(i) + "]"),
                    "= " + shown(v) + ": must be a rank in 0..4095, or -1 (not known)");
            r.costs.stageRanks.push_back(int(v.get<long long>()));
        }
        if (!r.costs.stageRanks.empty() && r.costs.stageRanks.size() != r.costs.stages.size())
            bad(at("stage_ranks"), "has " + std::to_string(r.costs.stageRanks.size()) + " entries for " +
                                       std::to_string(r.costs.stages.size()) + " stages: one per stage");
    }
}

} // namespace

OrderedJson actionCostsJson(const ActionCosts& a) {
    return OrderedJson{{"gap", a.gap},
                       {"post_recv", a.postRecv},
                       {"post_send", a.postSend},
                       {"wait_send", a.waitSend},
                       {"reduce_grad", a.reduceGrad},
                       {"unshard", a.unshard},
                       {"reshard", a.reshard}};
}

namespace {

/// The parts of ResidualParts, by their names in a fit file's `residual.critical_delta_us`.
constexpr std::array<std::pair<const char*, double ResidualParts::*>, 6> kResidualParts{{
    {"compute", &ResidualParts::compute},
    {"input_wait", &ResidualParts::inputWait},
    {"comm", &ResidualParts::comm},
    {"bookkeeping", &ResidualParts::bookkeeping},
    {"gaps", &ResidualParts::gaps},
    {"past_rank", &ResidualParts::pastRank},
}};

/// The parts of ActionPathParts, by their names in every report that writes a critical path.
constexpr std::array<std::pair<const char*, double ActionPathParts::*>, 7> kPathParts{{
    {"compute_us", &ActionPathParts::compute},
    {"transfers_us", &ActionPathParts::transfers},
    {"comm_us", &ActionPathParts::comm},
    {"waits_us", &ActionPathParts::waits},
    {"bookkeeping_us", &ActionPathParts::bookkeeping},
    {"gaps_us", &ActionPathParts::gaps},
    {"hops", &ActionPathParts::hops},
}};

OrderedJson residualJson(const RuntimeFitRecord& r) {
    OrderedJson out{{"makespan_error", r.residualMakespanError}, {"bubble_error", r.residualBubbleError}};
    if (r.residualParts.rank >= 0) {
        out["critical_rank"] = r.residualParts.rank;
        out["critical_delta_us"] = residualPartsJson(r.residualParts);
    }
    if (r.criticalPath)
        out["critical_path"] = {{"measured", actionPathJson(r.criticalPath->measured)},
                                {"predicted", actionPathJson(r.criticalPath->predicted)}};
    return out;
}

ActionPathParts readPath(const Json& v, const std::string& path) {
    ActionPathParts parts;
    for (const auto& [name, to] : kPathParts) {
        const Json& part = member(v, name, path);
        const std::string at = path + "." + name;
        // Every part is µs but the count of transfers on the path (a median: it may be a half).
        if (to == &ActionPathParts::hops &&
            (!part.is_number() || !std::isfinite(part.get<double>()) || part.get<double>() < 0))
            bad(at, "= " + shown(part) + ": must be a count of transfers, finite and >= 0");
        parts.*to = readCost(part, at, false);
    }
    return parts;
}

/// "; the largest part: rank 0's waits for its inputs, 9.3 ms under the run's" where the replay's
/// makespan is off by more than 2 % and the parts are known; "" otherwise.
std::string largestResidualPart(const RuntimeFitRecord& r) {
    const ResidualParts& p = r.residualParts;
    if (p.rank < 0 || std::abs(r.residualMakespanError) <= 0.02) return {};
    const std::string rank = "rank " + std::to_string(p.rank) + "'s ";
    const std::array<std::pair<std::string, double>, 6> parts{{
        {rank + "compute", p.compute},
        {rank + "waits for its inputs", p.inputWait},
        {rank + "posting and waiting on transfers", p.comm},
        {rank + "bookkeeping actions", p.bookkeeping},
        {rank + "framework gaps between actions", p.gaps},
        {"how far each step's slowest rank ends past rank " + std::to_string(p.rank) + "'s median time",
         p.pastRank},
    }};
    const auto largest = std::max_element(parts.begin(), parts.end(), [](const auto& a, const auto& b) {
        return std::abs(a.second) < std::abs(b.second);
    });
    char amount[64];
    std::snprintf(amount, sizeof amount, ", %.1f ms %s the run's", std::abs(largest->second) / 1000,
                  largest->second < 0 ? "under" : "over");
    return "; the largest part: " + largest->first + amount;
}

} // namespace

OrderedJson actionPathJson(const ActionPathParts& parts) {
    OrderedJson out;
    for (const auto& [name, member] : kPathParts) out[name] = parts.*member;
    return out;
}

std::string criticalPathText(const ActionPathParts& m, const ActionPathParts& p) {
    auto pair = [](double a, double b) { return millisecondsText(a) + " / " + millisecondsText(b); };
    return "the critical path, measured / predicted ms (medians): compute " + pair(m.compute, p.compute) +
           ", transfers " + pair(m.transfers, p.transfers) + " (" + fixedText(m.hops, 1) + " / " +
           fixedText(p.hops, 1) + " hops), comm " + pair(m.comm, p.comm) + ", waits not followed " +
           pair(m.waits, p.waits) + ", bookkeeping " + pair(m.bookkeeping, p.bookkeeping) + ", gaps " +
           pair(m.gaps, p.gaps);
}

OrderedJson residualPartsJson(const ResidualParts& parts) {
    OrderedJson out;
    for (const auto& [name, member] : kResidualParts) out[name] = parts.*member;
    return out;
}

std::string describeRuntimeFit(const RuntimeFitRecord& r) {
    // In words as well as a sign: the prediction against the run, as the overlay's error reads.
    char replay[128];
    std::snprintf(replay, sizeof replay, "makespan %.1f %% %s, bubble %.1f points %s",
                  100 * std::abs(r.residualMakespanError), r.residualMakespanError < 0 ? "short" : "long",
                  100 * std::abs(r.residualBubbleError), r.residualBubbleError < 0 ? "under" : "over");
    return r.model + " runtime model fitted to " + fileNamesOf(r.source) + " (" +
           std::to_string(r.iterations) + " iterations; its replay of that run: " + replay +
           largestResidualPart(r) + ")";
}

OrderedJson runtimeFitJson(const RuntimeFitRecord& r) {
    OrderedJson stages = OrderedJson::array();
    for (const StageCompute& s : r.costs.stages)
        stages.push_back({{"f", cost(s.f)}, {"b", cost(s.b)}, {"i", cost(s.i)}, {"w", cost(s.w)}});
    const CostSpread& d = r.costs.spread;
    return OrderedJson{
        {"stagecraft_runtime_fit", kRuntimeFitFormatVersion},
        {"model", r.model},
        {"source", r.source},
        {"iterations", r.iterations},
        {"ranks", r.ranks},
        {"microbatches", r.microbatches},
        {"stages_us", stages},
        {"actions_us", actionCostsJson(r.costs.actions)},
        {"transfer_us", {{"latency", r.costs.transfer.latency}, {"per_byte", r.costs.transfer.usPerByte}}},
        {"spread", {{"compute", d.compute}, {"gap", d.gap}, {"post", d.post}, {"transfer", d.transfer}}},
        {"shared_processors", r.costs.cores},
        {"weight_factors", weightFactorsJson(r.costs.weightFactors)},
        {"stage_ranks", r.costs.stageRanks},
        {"notes", r.notes},
        {"residual", residualJson(r)}};
}

std::string runtimeFitToJson(const RuntimeFitRecord& r) {
    return runtimeFitJson(r).dump(2) + '\n';
}

RuntimeFitRecord parseRuntimeFitJson(std::string_view text, const std::string& source) {
    Json doc;
    try {
        doc = Json::parse(text);
    } catch (const nlohmann::json::exception&) {
        const JsonFailure f = findJsonFailure(text);
        throw ParseError("fit.json", source, f.at.line, f.at.column, f.reason);
    }
    if (!doc.is_object()) bad("fit", "must be a JSON object (a runtime fit file)");
    return runtimeFitFromJson(doc, source);
}

RuntimeFitRecord runtimeFitFromJson(const Json& doc, const std::string& source, const std::string& prefix) {
    // Every field path in a message is the path from the document's root.
    const std::string root = prefix.empty() ? "fit" : prefix.substr(0, prefix.size() - 1);
    const auto at = [&](const std::string& name) { return prefix + name; };
    const Json& version = member(doc, "stagecraft_runtime_fit", root);
    if (!version.is_number_integer() || version.get<long long>() != kRuntimeFitFormatVersion)
        throw ValidationError("fit.version", at("stagecraft_runtime_fit"),
                              source + ": " + at("stagecraft_runtime_fit") + " = " + shown(version) +
                                  ": this build reads version " + std::to_string(kRuntimeFitFormatVersion));
    RuntimeFitRecord r;
    r.model = readString(member(doc, "model", root), at("model"));
    if (r.model != "torch-gloo")
        bad(at("model"), "= \"" + r.model.substr(0, 40) + "\": the one runtime model is torch-gloo");
    r.source = readString(member(doc, "source", root), at("source"));
    r.iterations = readCount(member(doc, "iterations", root), at("iterations"));
    r.ranks = readCount(member(doc, "ranks", root), at("ranks"));
    r.microbatches = readCount(member(doc, "microbatches", root), at("microbatches"));
    const Json& stages = member(doc, "stages_us", root);
    if (!stages.is_array() || stages.empty() || stages.size() > kMaxStages)
        bad(at("stages_us"), "= " + shown(stages) + ": must be an array of 1..4096 stages");
    for (std::size_t i = 0; i < stages.size(); ++i) {
        const std::string p = at("stages_us[" + std::to_string(i) + "]");
        StageCompute s;
        s.f = readCost(member(stages[i], "f", p), p + ".f", false);
        s.b = readCost(member(stages[i], "b", p), p + ".b", true);
        s.i = readCost(member(stages[i], "i", p), p + ".i", true);
        s.w = readCost(member(stages[i], "w", p), p + ".w", true);
        if (s.b < 0 && (s.i < 0 || s.w < 0))
            bad(p, "has neither b nor both i and w: a stage needs its backward");
        r.costs.stages.push_back(s);
    }
    const auto costOf = [&](const Json& object, const std::string& path, const char* key) {
        return readCost(member(object, key, path), path + "." + key, false);
    };
    const std::string actions = at("actions_us");
    const Json& a = member(doc, "actions_us", root);
    ActionCosts& ac = r.costs.actions;
    ac.gap = costOf(a, actions, "gap");
    ac.postRecv = costOf(a, actions, "post_recv");
    ac.postSend = costOf(a, actions, "post_send");
    ac.waitSend = costOf(a, actions, "wait_send");
    ac.reduceGrad = costOf(a, actions, "reduce_grad");
    ac.unshard = costOf(a, actions, "unshard");
    ac.reshard = costOf(a, actions, "reshard");
    const std::string transfer = at("transfer_us");
    const Json& t = member(doc, "transfer_us", root);
    r.costs.transfer.latency = costOf(t, transfer, "latency");
    r.costs.transfer.usPerByte = costOf(t, transfer, "per_byte");
    const std::string spread = at("spread");
    const Json& d = member(doc, "spread", root);
    r.costs.spread.compute = readSpread(member(d, "compute", spread), spread + ".compute");
    r.costs.spread.gap = readSpread(member(d, "gap", spread), spread + ".gap");
    r.costs.spread.post = readSpread(member(d, "post", spread), spread + ".post");
    r.costs.spread.transfer = readSpread(member(d, "transfer", spread), spread + ".transfer");
    // Absent in files written before the ranks' sharing of processors was fitted: one each.
    if (const auto it = doc.find("shared_processors"); it != doc.end()) {
        if (!it->is_number() || !std::isfinite(it->get<double>()) || it->get<double>() < 0 ||
            it->get<double>() > double(kMaxStages))
            bad(at("shared_processors"),
                "= " + shown(*it) + ": must be a number of processors in 0..4096 (0: one per rank)");
        r.costs.cores = it->get<double>();
    }
    readWeightFactors(doc, r, prefix);
    const Json& notes = member(doc, "notes", root);
    if (!notes.is_array() || notes.size() > 64) bad(at("notes"), "must be an array of at most 64 strings");
    for (std::size_t i = 0; i < notes.size(); ++i)
        r.notes.push_back(readString(notes[i], at("notes[" + std::to_string(i) + "]")));
    const Json& res = member(doc, "residual", root);
    for (const auto& [key, to] : {std::pair{"makespan_error", &r.residualMakespanError},
                                  std::pair{"bubble_error", &r.residualBubbleError}}) {
        const Json& v = member(res, key, at("residual"));
        if (!v.is_number() || !std::isfinite(v.get<double>()))
            bad(at("residual.") + key, "= " + shown(v) + ": must be a finite number");
        *to = v.get<double>();
    }
    // Absent in files written before the residual's parts were kept.
    if (const auto it = res.find("critical_rank"); it != res.end()) {
        if (!it->is_number_integer() || it->get<long long>() < 0 || it->get<long long>() >= r.ranks)
            bad(at("residual.critical_rank"),
                "= " + shown(*it) + ": must be a rank of the run, 0.." + std::to_string(r.ranks - 1));
        r.residualParts.rank = it->get<int>();
        const Json& parts = member(res, "critical_delta_us", at("residual"));
        for (const auto& [name, to] : kResidualParts) {
            const Json& v = member(parts, name, at("residual.critical_delta_us"));
            if (!v.is_number() || !std::isfinite(v.get<double>()))
                bad(at("residual.critical_delta_us.") + name,
                    "= " + shown(v) + ": must be a finite number of µs");
            r.residualParts.*to = v.get<double>();
        }
    }
    // Absent in files written before the fitted run's critical path was kept.
    if (const auto it = res.find("critical_path"); it != res.end()) {
        const std::string path = at("residual.critical_path");
        r.criticalPath = FitCriticalPath{readPath(member(*it, "measured", path), path + ".measured"),
                                         readPath(member(*it, "predicted", path), path + ".predicted")};
    }
    return r;
}

} // namespace stagecraft
