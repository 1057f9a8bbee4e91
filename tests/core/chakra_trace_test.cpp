// The Chakra export read back with a protobuf wire-format decoder independent of the writer
// (protobuf_wire.h), by the field numbers of Chakra's et_def.proto: ZB-H1 p = 4, m = 8 has the node
// counts and dependencies of its programs. scripts/chakra/check_et.py reads the same files with
// Chakra's own schema.
#include "error.h"
#include "eval/trace_export.h"
#include "generators/registry.h"
#include "io/chakra_trace.h"
#include "passes/iteration_tail.h"
#include "passes/lower.h"
#include "protobuf_wire.h"
#include "sim/list_scheduler.h"
#include "sim/simulator.h"

#include <catch2/catch.hpp>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <sstream>
#include <string>
#include <tuple>
#include <vector>

using namespace stagecraft;
using test::all;
using test::decode;
using test::Field;
using test::find;

namespace {

struct Node {
    std::uint64_t id = 0, type = 0, duration = 0;
    std::string name;
    std::vector<std::uint64_t> data, ctrl;
    std::map<std::string, std::uint64_t> attrs;
};

std::vector<Node> nodesOf(const std::string& file, std::string* version) {
    const std::vector<std::string> records = test::records(file);
    REQUIRE(!records.empty());
    *version = find(decode(records.front()), 1)->bytes; // GlobalMetadata.version
    std::vector<Node> nodes;
    for (std::size_t i = 1; i < records.size(); ++i) {
        const std::vector<Field> fields = decode(records[i]);
        Node n;
        n.id = find(fields, 1)->varint;
        n.name = find(fields, 2)->bytes;
        n.type = find(fields, 3)->varint;
        if (const Field* d = find(fields, 7)) n.duration = d->varint;
        for (const Field* d : all(fields, 4)) n.ctrl.push_back(d->varint);
        for (const Field* d : all(fields, 5)) n.data.push_back(d->varint);
        for (const Field* a : all(fields, 10)) {
            const std::vector<Field> attr = decode(a->bytes);
            for (const Field& value : attr)
                if (value.number != 1) n.attrs[find(attr, 1)->bytes] = value.varint;
        }
        nodes.push_back(n);
    }
    return nodes;
}

} // namespace

TEST_CASE("the Chakra export of ZB-H1 reads back with its programs' nodes and dependencies", "[chakra]") {
    const Schedule s = addIterationTail(generateSchedule("zb-h1", {4, 8, 1}), {});
    const Timeline timeline = simulate(s, fullStageCosts(s, 1000, 1000, 1000, 250));
    const Lowered programs = lower(s);
    const std::vector<std::string> files = programsToChakra(programs, timeline);
    REQUIRE(files.size() == 4);
    enum { kComp = 4, kSend = 5, kRecv = 6, kColl = 7 };
    std::multiset<std::tuple<std::uint64_t, std::uint64_t, std::uint64_t, std::uint64_t>> sends, recvs;
    for (int rank = 0; rank < 4; ++rank) {
        INFO("rank " << rank);
        std::string version;
        const std::vector<Node> nodes = nodesOf(files[std::size_t(rank)], &version);
        CHECK(version == "1.0.2-chakra.1.0.0");
        std::map<std::uint64_t, const Node*> byId;
        std::map<std::uint64_t, int> count;
        for (const Node& n : nodes) {
            byId[n.id] = &n;
            ++count[n.type];
        }
        // F, B and W of each of 8 micro-batches; a send and a receive per micro-batch and
        // direction to each neighbour; one gradient sync.
        const int neighbours = rank == 0 || rank == 3 ? 1 : 2;
        CHECK(count[kComp] == 3 * 8);
        CHECK(count[kSend] == 8 * neighbours);
        CHECK(count[kRecv] == 8 * neighbours);
        CHECK(count[kColl] == 1);
        for (const Node& n : nodes) {
            for (const std::uint64_t d : n.data) REQUIRE((byId.count(d) && d < n.id));
            for (const std::uint64_t d : n.ctrl) REQUIRE((byId.count(d) && d < n.id));
            if (n.type == kComp) {
                CHECK(n.duration > 0);
                // A forward on ranks 1..3 waits for the activation from the rank before.
                if (n.name.find('F') != std::string::npos && rank > 0) {
                    REQUIRE(n.data.size() == 1);
                    const Node& recv = *byId[n.data.front()];
                    CHECK(recv.type == kRecv);
                    CHECK(recv.attrs.at("comm_src") == std::uint64_t(rank - 1));
                }
            }
            if (n.type == kSend) {
                REQUIRE(n.data.size() == 1);
                CHECK(byId[n.data.front()]->type == kComp);
                sends.insert({n.attrs.at("comm_src"), n.attrs.at("comm_dst"), n.attrs.at("comm_tag"),
                              n.attrs.at("comm_size")});
            }
            if (n.type == kRecv)
                recvs.insert({n.attrs.at("comm_src"), n.attrs.at("comm_dst"), n.attrs.at("comm_tag"),
                              n.attrs.at("comm_size")});
        }
    }
    CHECK(sends.size() == 48);
    CHECK(sends == recvs); // every send has its receive: peer, tag and bytes
}

TEST_CASE("the Chakra export refuses a timeline that lacks an op", "[chakra]") {
    const Schedule s = generateSchedule("1f1b", {2, 2, 1});
    Timeline timeline = simulate(s, fullStageCosts(s, 1, 1, 1));
    timeline.events.erase(timeline.events.begin());
    CHECK_THROWS_AS(programsToChakra(lower(s), timeline), ValidationError);
}

TEST_CASE("a recompute node of the Chakra export takes nothing from another rank", "[chakra][recompute]") {
    const Schedule s = generateSchedule("1f1b-recompute", {4, 4, 1});
    const Timeline timeline = simulate(s, fullStageCosts(s, 1000, 1000, 1000, 250));
    const std::vector<std::string> files = programsToChakra(lower(s), timeline);
    REQUIRE(files.size() == 4);
    int recomputes = 0;
    for (int rank = 0; rank < 4; ++rank) {
        std::string version;
        for (const Node& n : nodesOf(files[std::size_t(rank)], &version)) {
            const std::uint64_t compute = 4; // Chakra's COMP_NODE
            if (n.type != compute || n.name.find('R') == std::string::npos) continue;
            ++recomputes;
            CHECK(n.data.empty()); // its F is before it on the rank: a control dependency only
            CHECK(n.ctrl.size() == 1);
            CHECK(n.duration == 1000);
        }
    }
    CHECK(recomputes == 16);
}

TEST_CASE("a project's Chakra export sends the cost model's activation and gradient bytes", "[chakra]") {
    // A network simulator times a transfer by its size: one unit per boundary would make every
    // pipeline transfer free.
    Project project = defaultProject();
    const Prediction prediction = predict(project, generateSchedule("1f1b", {4, 8, 1}));
    REQUIRE(prediction.setup.p2pBytesPerTransfer > 1e6);
    const auto dir = std::filesystem::temp_directory_path() / "stagecraft_chakra_bytes";
    std::filesystem::create_directories(dir);
    const auto files = writeTraceExport(prediction, (dir / "run.et").string(), TraceExport::Chakra, "1f1b");
    REQUIRE(files.size() == 4);
    std::ifstream in(files[1], std::ios::binary);
    std::stringstream text;
    text << in.rdbuf();
    std::string version;
    int sends = 0, syncs = 0;
    for (const Node& n : nodesOf(text.str(), &version)) {
        if (n.type == 5) {
            ++sends;
            CHECK(double(n.attrs.at("comm_size")) == prediction.setup.p2pBytesPerTransfer);
        }
        if (n.type == 7) { // rank 1's gradient sync all-reduces its stage's gradients
            ++syncs;
            REQUIRE(prediction.setup.gradientBytes.size() == 4);
            CHECK(double(n.attrs.at("comm_size")) == std::floor(prediction.setup.gradientBytes[1]));
            CHECK(n.attrs.at("comm_size") > 1000000);
        }
    }
    CHECK(sends == 16);
    CHECK(syncs == 1);
    std::filesystem::remove_all(dir);
}
