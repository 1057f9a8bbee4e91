// stagecraft-cli end to end: every command run as a user would, checking exit status, output and
// the files it writes (read back through core/).
#include "cli_run.h"
#include "file_io.h"
#include "generators/registry.h"
#include "io/chrome_trace.h"
#include "io/schedule_file.h"

#include <algorithm>
#include <array>
#include <catch2/catch.hpp>
#include <cstdio>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <string>
#include <sys/wait.h>

namespace {

using stagecraft::test::cli;
using stagecraft::test::Run;

std::filesystem::path tempDir() {
    auto dir = std::filesystem::temp_directory_path() / ("stagecraft-cli-test-" + std::to_string(::getpid()));
    std::filesystem::create_directories(dir);
    return dir;
}

const std::string kSamples = std::string(STAGECRAFT_SOURCE_DIR) + "/samples/";

} // namespace

TEST_CASE("list prints every schedule, as text and JSON", "[cli]") {
    const Run text = cli("list");
    CHECK(text.status == 0);
    for (const auto& info : stagecraft::generators())
        CHECK_THAT(text.out, Catch::Contains(std::string(info.name)));
    const Run json = cli("list --json");
    REQUIRE(json.status == 0);
    const auto parsed = nlohmann::json::parse(json.out);
    REQUIRE(parsed.size() == stagecraft::generators().size());
    // In the registry's order: 1f1b-recompute, with its constraints, right after 1f1b.
    CHECK(parsed[1]["name"] == "1f1b");
    CHECK(parsed[2]["name"] == "1f1b-recompute");
    CHECK(parsed[2]["constraints"] == "none");
    CHECK(parsed[3]["name"] == "interleaved");
    CHECK(parsed[3]["params"][2]["field"] == "parallel.chunks");
}

TEST_CASE("generate writes CSV and JSON that read back", "[cli]") {
    const auto dir = tempDir();
    const auto csv = (dir / "zbv.csv").string();
    const Run r = cli("generate -s zb-v --set parallel.pp=4 --set parallel.microbatches=8 -o " + csv);
    INFO(r.out);
    REQUIRE(r.status == 0);
    const auto schedule = stagecraft::readScheduleFile(csv);
    CHECK(schedule.order == stagecraft::generateSchedule("zb-v", {4, 8, 1}).order);
    const auto json = (dir / "bitpipe.json").string();
    const Run j = cli(
        "generate -s bitpipe --set parallel.pp=4 --set parallel.microbatches=8 --set model.layers=16 -o " +
        json);
    INFO(j.out);
    REQUIRE(j.status == 0);
    CHECK(stagecraft::readScheduleFile(json).pipes == 2);
    CHECK(cli("validate " + json).status == 0);
    std::filesystem::remove_all(dir);
}

TEST_CASE("Bad input exits with status 2 and names the problem", "[cli]") {
    const Run pp = cli("generate -s 1f1b --set parallel.pp=1000000000 -o /tmp/never.csv");
    CHECK(pp.status == 2);
    CHECK_THAT(pp.out, Catch::Contains("parallel.pp") && Catch::Contains("1000000000"));
    const Run unknown = cli("show -s zb-x");
    CHECK(unknown.status == 2);
    CHECK_THAT(unknown.out, Catch::Contains("unknown schedule 'zb-x'"));
    const Run constraint = cli("show -s interleaved --set parallel.microbatches=9");
    CHECK(constraint.status == 2);
    CHECK_THAT(constraint.out, Catch::Contains("rounds of equal size and needs microbatches % 2 == 0"));
    const Run set = cli("show -s 1f1b --set parallel.pp");
    CHECK(set.status == 2);
    CHECK_THAT(set.out,
               Catch::Contains("--set expects path=value (e.g. parallel.pp=8), got \"parallel.pp\""));
    const Run missing = cli("validate /nonexistent/file.csv");
    CHECK(missing.status == 2);
    CHECK_THAT(missing.out, Catch::Contains("/nonexistent/file.csv"));
    CHECK(cli("frobnicate").status == 2);
    CHECK(cli("generate -s 1f1b").status == 2); // -o is required
}

TEST_CASE("Bidirectional schedules are refused as torch CSV", "[cli]") {
    const Run r = cli("generate -s chimera -o /tmp/stagecraft-never.csv");
    CHECK(r.status == 2);
    CHECK_THAT(r.out, Catch::Contains("CSV"));
    CHECK_FALSE(std::filesystem::exists("/tmp/stagecraft-never.csv"));
}

TEST_CASE("A failed write exits with status 1 and keeps nothing half-written", "[cli]") {
    const Run r = cli("generate -s 1f1b -o /proc/stagecraft-cannot-write.json");
    CHECK(r.status == 1);
    CHECK_THAT(r.out, Catch::Contains("cannot write"));
}

TEST_CASE("show draws the papers' order", "[cli]") {
    const Run r = cli("show -s 1f1b --set parallel.pp=4 --set parallel.microbatches=8 --color never");
    REQUIRE(r.status == 0);
    // Device 3 of 1F1B starts after three idle steps and alternates F and B.
    CHECK_THAT(r.out, Catch::Contains("D3 |.  .  .  F0 B0 F1 B1"));
    CHECK_THAT(r.out, Catch::Contains("D0 |F0 F1 F2 F3 .  .  .  B0"));
}

TEST_CASE("Every command has --help", "[cli]") {
    for (const char* command : {"list", "validate", "generate", "show", "simulate", "compare", "overlay"}) {
        INFO(command);
        const Run r = cli(std::string(command) + " --help");
        CHECK(r.status == 0);
        CHECK_THAT(r.out, Catch::Contains("Usage") || Catch::Contains("usage") || Catch::Contains("OPTIONS"));
    }
}

TEST_CASE("validate reads a project and every schedule it lists", "[cli]") {
    const Run r = cli("validate " + kSamples + "zb-1.5b.stagecraft.json");
    INFO(r.out);
    CHECK(r.status == 0);
}

TEST_CASE("A project is valid or not whatever the command: --schedule does not hide its list", "[cli]") {
    const auto dir = tempDir();
    auto project = nlohmann::json::parse(
        stagecraft::readTextFile(std::string(STAGECRAFT_SOURCE_DIR) + "/samples/zb-1.5b.stagecraft.json"));
    project["schedules"] = {"1f1b", "nope"};
    const std::string path = (dir / "unknown-schedule.stagecraft.json").string();
    stagecraft::writeFileAtomically(path, project.dump(2));
    const Run validate = cli("validate " + path);
    CHECK(validate.status == 2);
    CHECK_THAT(validate.out, Catch::Contains("schedules[1] = \"nope\": unknown schedule"));
    // Commands that only need an order (show, generate, lower) check the list too.
    for (const std::string& command :
         {"simulate " + path + " -s 1f1b", "compare " + path + " -s 1f1b,zb-h1",
          "export " + path + " -s 1f1b -o " + (dir / "x.svg").string(), "show " + path + " -s 1f1b",
          "lower " + path + " -s 1f1b", "generate " + path + " -s 1f1b -o " + (dir / "x.json").string()}) {
        const Run run = cli(command);
        INFO(command << "\n" << run.out);
        CHECK(run.status == 2);
        CHECK_THAT(run.out, Catch::Contains("schedules[1] = \"nope\": unknown schedule"));
    }
    std::filesystem::remove_all(dir);
}

TEST_CASE("simulate prints metrics; --json is machine readable", "[cli]") {
    const Run text =
        cli("simulate -s 1f1b --set costs.mode=unit --set parallel.pp=4 --set parallel.microbatches=8");
    INFO(text.out);
    REQUIRE(text.status == 0);
    CHECK_THAT(text.out, Catch::Contains("27.27%")); // (p-1)/(m+p-1) = 3/11
    CHECK_THAT(text.out, Catch::Contains("D3"));     // per-device breakdown
    const Run json = cli("simulate " + kSamples + "zb-6.2b.stagecraft.json -s zb-v --json");
    INFO(json.out);
    REQUIRE(json.status == 0);
    const auto parsed = nlohmann::json::parse(json.out);
    REQUIRE(parsed.size() == 1);
    CHECK(parsed[0]["schedule"] == "zb-v");
    CHECK(parsed[0]["cost_mode"] == "analytic");
    CHECK(parsed[0]["devices"].size() == 8);
    CHECK(parsed[0]["mfu"].get<double>() > 0.0);
    CHECK(parsed[0]["mfu"].get<double>() < 1.0);
}

TEST_CASE("compare sorts schedules by throughput", "[cli]") {
    const Run r = cli("compare -s 1f1b,zb-h1,interleaved --set costs.mode=unit --set model.layers=16 --csv");
    INFO(r.out);
    REQUIRE(r.status == 0);
    // Unit costs, p=4 m=8: ZB-H1 (27 units) < interleaved v=2 (28.5) < 1F1B (33).
    const auto first = r.out.find("\nzb-h1,"), second = r.out.find("\ninterleaved,"),
               third = r.out.find("\n1f1b,");
    CHECK(first != std::string::npos);
    CHECK(first < second);
    CHECK(second < third);
    CHECK(cli("compare -s 1f1b,nope").status == 2);
}

TEST_CASE("export writes every format and each reads back", "[cli]") {
    namespace fs = std::filesystem;
    const auto dir = tempDir();
    const std::string base = "export -s zb-h1 --set parallel.pp=4 --set parallel.microbatches=8 -o ";
    const auto trace = (dir / "t.json").string();
    REQUIRE(cli(base + trace).status == 0);
    const auto timeline = stagecraft::readChromeTrace(trace);
    CHECK(timeline.shape.devices == 4);
    CHECK(
        std::count_if(timeline.events.begin(), timeline.events.end(), [](const stagecraft::TimelineEvent& e) {
            return e.lane == stagecraft::Lane::Compute && stagecraft::isComputeKind(e.op.kind);
        }) == 4 * 8 * 3);
    const auto svg = (dir / "c.svg").string();
    REQUIRE(cli(base + svg).status == 0);
    const std::string svgText = stagecraft::readTextFile(svg);
    CHECK(svgText.rfind("<?xml", 0) == 0);
    auto count = [&](const std::string& needle) {
        std::size_t n = 0;
        for (auto pos = svgText.find(needle); pos != std::string::npos; pos = svgText.find(needle, pos + 1))
            ++n;
        return n;
    };
    // One rect per F, B and W, and one optimizer step per device (the iteration's tail).
    CHECK(count("class=\"op F") == 4 * 8);
    CHECK(count("class=\"op B") == 4 * 8);
    CHECK(count("class=\"op W") == 4 * 8);
    CHECK(count("class=\"op Optimizer") == 4);
    if (std::system("command -v xmllint > /dev/null 2>&1") == 0)
        CHECK(std::system(("xmllint --noout '" + svg + "'").c_str()) == 0);
    const auto tex = (dir / "c.tex").string();
    REQUIRE(cli(base + tex).status == 0);
    CHECK_THAT(stagecraft::readTextFile(tex), Catch::Contains("\\begin{tikzpicture}"));
    const auto csv = (dir / "s.csv").string();
    REQUIRE(cli(base + csv).status == 0);
    CHECK(stagecraft::readScheduleFile(csv).order == stagecraft::generateSchedule("zb-h1", {4, 8, 1}).order);
    const auto metrics = (dir / "m.metrics.json").string();
    REQUIRE(cli(base + metrics).status == 0);
    CHECK(nlohmann::json::parse(stagecraft::readTextFile(metrics))[0]["schedule"] == "zb-h1");
    const Run bad = cli(base + (dir / "c.xyz").string());
    CHECK(bad.status == 2);
    CHECK_THAT(bad.out, Catch::Contains("unknown extension"));
    CHECK_FALSE(fs::exists(dir / "c.xyz"));
    fs::remove_all(dir);
}

TEST_CASE("export draws PDF and PNG through the Qt renderer, or says why it cannot", "[cli]") {
    namespace fs = std::filesystem;
    const auto dir = tempDir();
    const std::string base = "export -s 1f1b --set costs.mode=unit -o ";
    const auto pdf = (dir / "c.pdf").string();
    const auto png = (dir / "c.png").string();
    const Run p = cli(base + pdf);
    const Run i = cli(base + png + " --dpi 144");
    INFO(p.out << i.out);
#ifdef STAGECRAFT_CLI_RASTER
    REQUIRE(p.status == 0);
    REQUIRE(i.status == 0);
    CHECK(stagecraft::readTextFile(pdf).rfind("%PDF", 0) == 0);
    const std::string bytes = stagecraft::readTextFile(png);
    REQUIRE(bytes.size() > 24);
    CHECK(bytes.substr(1, 3) == "PNG");
    // Width from the IHDR chunk: 500 pt at 144 dpi = 1000 px.
    const auto u8 = [&](std::size_t k) { return std::uint32_t(static_cast<unsigned char>(bytes[k])); };
    CHECK(((u8(16) << 24) | (u8(17) << 16) | (u8(18) << 8) | u8(19)) == 1000);
    if (std::system("command -v pdfinfo > /dev/null 2>&1") == 0)
        CHECK(std::system(("pdfinfo '" + pdf + "' > /dev/null").c_str()) == 0);
#else
    CHECK(p.status == 2);
    CHECK_THAT(p.out, Catch::Contains("Qt renderer"));
    CHECK_FALSE(fs::exists(pdf));
#endif
    fs::remove_all(dir);
}

TEST_CASE("Schedule files work wherever a project does, timed with the default or a given project",
          "[cli][eval]") {
    const auto dir = tempDir();
    const std::string csv = (dir / "order.csv").string();
    // An order depends on neither the cluster (8 GPUs, dp = 2) nor the layer count.
    const Run generated =
        cli("generate -s 1f1b --set parallel.pp=8 --set parallel.microbatches=12 -o " + csv);
    REQUIRE(generated.status == 0);

    const Run unit = cli("simulate " + csv + " --set costs.mode=unit --json");
    REQUIRE(unit.status == 0);
    const auto json = nlohmann::json::parse(unit.out);
    CHECK(json[0]["schedule"] == "order.csv");
    CHECK(json[0]["iteration_us"].get<double>() == Approx((12 + 8 - 1) * 3.0)); // (m + p - 1)(F + B)
    CHECK(json[0]["mfu"].is_null());
    CHECK(json[0]["samples_per_s"].is_null());

    // Analytic costs place every GPU: 8 pipeline devices x dp 2 on 8 GPUs is refused with the fix.
    const Run analytic = cli("simulate " + csv);
    CHECK(analytic.status == 2);
    CHECK_THAT(analytic.out, Catch::Contains("set cluster.nodes = 2"));
    const Run withProject = cli("simulate " + csv + " --project " + std::string(STAGECRAFT_SOURCE_DIR) +
                                "/samples/zb-6.2b.stagecraft.json");
    CHECK(withProject.status == 0);
    CHECK_THAT(withProject.out, Catch::Contains("order.csv") && Catch::Contains("analytic"));

    const Run compare = cli("compare " + csv + " --set costs.mode=unit");
    CHECK(compare.status == 0);
    CHECK_THAT(compare.out, Catch::Contains("order.csv"));
    const Run show = cli("show " + csv + " --color never");
    CHECK(show.status == 0);
    CHECK_THAT(show.out, Catch::Contains("p=8 m=12"));
    const std::string svg = (dir / "order.svg").string();
    CHECK(cli("export " + csv + " --set costs.mode=unit -o " + svg).status == 0);
    CHECK_THAT(stagecraft::readTextFile(svg), Catch::Contains("order.csv"));
    const Run withName = cli("simulate " + csv + " -s 1f1b");
    CHECK(withName.status == 2);
    CHECK_THAT(withName.out, Catch::Contains("a schedule file is its own schedule"));
    std::filesystem::remove_all(dir);
}

TEST_CASE("MFU is never a number the costs cannot support", "[cli][eval]") {
    // Manual F = B = W = 1 ms on the default 1.3B model would be 361 % of an A100's peak.
    const Run manual = cli("simulate -s 1f1b --set costs.mode=manual --set costs.f=1000 --set costs.b=1000 "
                           "--set costs.w=1000 --json");
    REQUIRE(manual.status == 0);
    const auto json = nlohmann::json::parse(manual.out);
    CHECK(json[0]["mfu"].is_null());
    CHECK(json[0]["tflops_per_gpu"].is_null());
    CHECK_THAT(json[0]["flops_note"].get<std::string>(), Catch::Contains("of cluster.peak_tflops"));
    const Run table = cli("simulate -s 1f1b --set costs.mode=manual --set costs.f=1000 --set costs.b=1000 "
                          "--set costs.w=1000");
    CHECK_THAT(table.out, Catch::Contains("TFLOP/s and MFU: the manual costs imply"));
    const Run analytic = cli("simulate -s 1f1b --json");
    const auto a = nlohmann::json::parse(analytic.out);
    CHECK(a[0]["mfu"].get<double>() > 0.1);
    CHECK(a[0]["mfu"].get<double>() < 1.0);
}

TEST_CASE("validate and show read the CSVs torch writes itself", "[cli]") {
    const std::string dir = std::string(STAGECRAFT_SOURCE_DIR) + "/tests/data/torch-csv/";
    for (const char* file :
         {"GPipe_pp4_m8_v1.csv", "Interleaved1F1B_pp4_m10_v2.csv", "LoopedBFS_pp4_m5_v2.csv",
          "InterleavedZeroBubble_pp3_m4_v4.csv", "ZBVZeroBubble_pp8_m16_v2.csv"}) {
        INFO(file);
        const Run validate = cli("validate " + dir + file);
        CHECK(validate.status == 0);
        CHECK_THAT(validate.out, Catch::StartsWith("ok: " + dir + file));
        const Run show = cli("show " + dir + file + " --color never");
        CHECK(show.status == 0);
        CHECK_THAT(show.out, Catch::StartsWith(std::string(file) + ": p="));
    }
    // GPipe's REDUCE_GRAD cells are read as the stages' gradient syncs.
    const Run gpipe = cli("show " + dir + "GPipe_pp2_m3_v1.csv --color never");
    CHECK(gpipe.status == 0);
    CHECK(gpipe.out == "GPipe_pp2_m3_v1.csv: p=2 m=3 stages/pipe=2, 9 steps (every op one step)\n"
                       "D0 |F0 F1 F2 .  .  B0 B1 B2 S |\n"
                       "D1 |.  F0 F1 F2 B0 B1 B2 S  . |\n"
                       "F forward, B backward, S gradient sync, . idle\n");
    // DualPipeV's overlapped cells are read as overlapped slots, or one after the other on request.
    CHECK(cli("validate " + dir + "DualPipeV_pp2_m4_v2.csv").status == 0);
    CHECK(cli("validate --serialize-overlap " + dir + "DualPipeV_pp2_m4_v2.csv").status == 0);
    const Run dualShow = cli("show " + dir + "DualPipeV_pp2_m4_v2.csv --color never");
    CHECK(dualShow.status == 0);
    CHECK_THAT(dualShow.out, Catch::Contains("&") && Catch::Contains("F&B an overlapped slot"));
    // torch's static 1F1B order: its last rank never runs micro-batch 0, and that row is named.
    const Run oneF = cli("validate " + dir + "1F1B_pp4_m8_v1.csv");
    CHECK(oneF.status == 2);
    CHECK_THAT(oneF.out,
               Catch::Contains("1F1B_pp4_m8_v1.csv line 4, column 2: '3B0' has no forward: rank 3 runs "
                               "3F1..3F8 and never 3F0"));
}

TEST_CASE("simulate reads every compute-only CSV torch writes, under unit costs", "[cli][torch-files]") {
    namespace fs = std::filesystem;
    int simulated = 0;
    for (const auto& entry :
         fs::directory_iterator(std::string(STAGECRAFT_SOURCE_DIR) + "/tests/data/torch-csv")) {
        const std::string name = entry.path().filename().string();
        // Compute+comms files are lowered programs (stagecraft-cli lower reads them); torch's
        // static 1F1B order is refused (its last rank never runs micro-batch 0).
        if (entry.path().extension() != ".csv" || name.find("_comms") != std::string::npos ||
            name.rfind("1F1B_", 0) == 0)
            continue;
        INFO(name);
        const bool overlap = name.rfind("DualPipeV", 0) == 0 || name.rfind("dualpipev", 0) == 0;
        const Run run = cli("simulate " + entry.path().string() + " --set costs.mode=unit --json" +
                            (overlap ? " --serialize-overlap" : ""));
        REQUIRE(run.status == 0);
        const auto json = nlohmann::json::parse(run.out);
        CHECK(json[0]["schedule"] == name);
        CHECK(json[0]["iteration_us"].get<double>() > 0);
        ++simulated;
    }
    CHECK(simulated >= 25);
}

TEST_CASE("lower prints per-rank programs, buffers and the replay's verdict", "[cli][lower]") {
    const Run run = cli("lower -s 1f1b --set parallel.pp=4 --set parallel.microbatches=8");
    REQUIRE(run.status == 0);
    CHECK_THAT(run.out, Catch::Contains("r1: RECV_F s0->s1 mb3 from r0 tag 18 slot 0 bytes 1 group 3\n"
                                        "r1: SEND_B s1->s0 mb0 to r0 tag 1 slot -1 bytes 1 group 3\n"));
    CHECK_THAT(run.out, Catch::Contains("activation buffers per stage: s0 4, s1 3, s2 2, s3 1\n"));
    CHECK_THAT(run.out, Catch::Contains("replay: deadlock-free under NCCL semantics\n"));
    const Run mpi =
        cli("lower -s bitpipe --set parallel.pp=4 --set parallel.microbatches=4 --semantics mpi --no-groups");
    REQUIRE(mpi.status == 0);
    CHECK_THAT(mpi.out,
               Catch::Contains("replay: deadlock-free under MPI semantics, each transfer posted alone"));
    const Run noSchedule = cli("lower");
    CHECK(noSchedule.status == 2);
    CHECK_THAT(noSchedule.out, Catch::Contains("no schedule given: pass --schedule NAME"));
}

TEST_CASE("lower writes torch's compute+comms CSV and JSON, and reads the CSV back", "[cli][lower]") {
    namespace fs = std::filesystem;
    const auto dir = tempDir();
    const auto csv = (dir / "zbv.csv").string();
    REQUIRE(cli("lower -s zb-v --set parallel.pp=4 --set parallel.microbatches=8 -o " + csv).status == 0);
    const std::string written = stagecraft::readTextFile(csv);
    CHECK(written.rfind("0F0,0SEND_F0,0F1,", 0) == 0);
    // Read back as programs: the listing is the same as lowering the schedule itself.
    const Run again = cli("lower " + csv);
    const Run direct = cli("lower -s zb-v --set parallel.pp=4 --set parallel.microbatches=8");
    REQUIRE(again.status == 0);
    REQUIRE(direct.status == 0);
    const auto body = [](const std::string& out) {
        const auto begin = out.find("\nr0: ");
        return out.substr(begin, out.find("\nlowered") - begin);
    };
    CHECK(body(again.out) == body(direct.out));
    const auto json = (dir / "p.json").string();
    REQUIRE(cli("lower -s 1f1b --set parallel.pp=2 --set parallel.microbatches=2 -o " + json).status == 0);
    const auto parsed = nlohmann::json::parse(stagecraft::readTextFile(json));
    CHECK(parsed["stagecraft_programs"] == 1);
    CHECK(parsed["programs"][0]["instructions"][1]["kind"] == "SEND_F");
    CHECK(parsed["programs"][0]["instructions"][1]["peer"] == 1);
    const Run bidirectional = cli("lower -s chimera -o " + (dir / "c.csv").string());
    CHECK(bidirectional.status == 2);
    CHECK_THAT(bidirectional.out, Catch::Contains("second pipe"));
    CHECK_FALSE(fs::exists(dir / "c.csv"));
    fs::remove_all(dir);
}

TEST_CASE("lower exits with status 2 and the ring when programs deadlock under NCCL", "[cli][lower]") {
    const std::string file =
        std::string(STAGECRAFT_SOURCE_DIR) + "/tests/fuzz/corpus/torch_comms_csv/ring.csv";
    const Run nccl = cli("lower " + file);
    CHECK(nccl.status == 2);
    CHECK_THAT(nccl.out,
               Catch::Contains("stagecraft-cli: 'ring.csv': deadlock under NCCL semantics: ranks wait on "
                               "each other in a ring: rank 0 waits at 3 (SEND_F s0->s1 mb1 to r1 tag 2 "
                               "slot 1 bytes 1) for rank 1 to post the matching RECV_F; rank 1 waits at 3"));
    const Run mpi = cli("lower " + file + " --semantics mpi");
    CHECK(mpi.status == 0);
}

TEST_CASE("show --comm draws each rank's lowered program under its Gantt chart", "[cli][lower]") {
    const Run run =
        cli("show -s 1f1b --set parallel.pp=2 --set parallel.microbatches=3 --comm --color never");
    REQUIRE(run.status == 0);
    CHECK_THAT(run.out,
               Catch::Contains("1f1b: per-rank programs, 6 transfers\n"
                               "r0 |F0     F0>r1  F1     [F1>r1 r1>B0] B0     F2     [r1>B1 F2>r1] B1 "
                               "    r1>B2  B2     S      O\n"));
    const Run file = cli("show " + std::string(STAGECRAFT_SOURCE_DIR) +
                         "/tests/data/torch-csv/ZBVZeroBubble_pp4_m8_v2.csv --comm --color never");
    CHECK(file.status == 0);
    CHECK_THAT(file.out, Catch::Contains("per-rank programs"));
}

namespace {

const std::string kOverlayProject = kSamples + "zb-1.5b.stagecraft.json";

/// A measured trace of `timeline` run twice: iteration 0 as predicted, iteration 1 `slowdown` times
/// slower, after a gap, as stagecraft-run writes several iterations.
void writeTwoIterations(const stagecraft::Timeline& timeline, double slowdown, const std::string& path) {
    stagecraft::Timeline two = timeline;
    two.origin = "measured";
    std::vector<std::uint32_t> iterations(timeline.events.size(), 0);
    const double offset = timeline.makespan() + 1000;
    for (stagecraft::TimelineEvent e : timeline.events) {
        e.start = offset + slowdown * e.start;
        e.end = offset + slowdown * e.end;
        two.events.push_back(e);
        iterations.push_back(1);
    }
    stagecraft::ChromeTraceOptions options;
    options.iterations = iterations;
    options.runJson = R"({"backend":"host","devices":8})";
    stagecraft::writeChromeTrace(two, path, options);
}

} // namespace

TEST_CASE("overlay of a trace of the same project has no error, as text, JSON and chart", "[cli][overlay]") {
    const auto dir = tempDir();
    const std::string trace = (dir / "t.json").string();
    REQUIRE(cli("export " + kOverlayProject + " -s 1f1b -o " + trace).status == 0);

    const Run text = cli("overlay " + kOverlayProject + " " + trace + " -s 1f1b");
    INFO(text.out);
    REQUIRE(text.status == 0);
    CHECK_THAT(text.out, Catch::StartsWith("overlay of " + trace + " on 1f1b\n"));
    CHECK_THAT(text.out,
               Catch::Contains("+0.00%") && Catch::Contains("D7") && Catch::Contains("drifted most"));

    const Run json = cli("overlay " + kOverlayProject + " " + trace + " -s 1f1b --json");
    REQUIRE(json.status == 0);
    const auto parsed = nlohmann::json::parse(json.out);
    CHECK(parsed["schedule"] == "1f1b");
    CHECK(parsed["iteration"].is_null());
    CHECK(parsed["makespan"]["error"] == 0.0);
    CHECK(parsed["makespan"]["predicted_us"] == parsed["makespan"]["measured_us"]);
    CHECK(parsed["bubble"]["predicted"] == parsed["bubble"]["measured"]);
    CHECK(parsed["duration_error_us"]["max_abs"] == 0.0);
    CHECK(parsed["start_error_us"]["max_abs"] == 0.0);
    REQUIRE(parsed["devices"].size() == 8);
    CHECK(parsed["devices"][3]["duration_ratio"] == 1.0);
    CHECK(parsed["kinds"][0]["kind"] == "F");
    REQUIRE(parsed["most_drift"].size() == 5);
    CHECK(parsed["most_drift"][0]["predicted_duration_us"] ==
          parsed["most_drift"][0]["measured_duration_us"]);

    // -o writes the chart `export --trace` writes, byte for byte.
    const std::string overlaid = (dir / "overlay.svg").string(), exported = (dir / "export.svg").string();
    const Run chart = cli("overlay " + kOverlayProject + " " + trace + " -s 1f1b --json -o " + overlaid);
    REQUIRE(chart.status == 0);
    REQUIRE(cli("export " + kOverlayProject + " -s 1f1b --trace " + trace + " -o " + exported).status == 0);
    const std::string svg = stagecraft::readTextFile(overlaid);
    CHECK(svg == stagecraft::readTextFile(exported));
    CHECK_THAT(svg, Catch::Contains("class=\"op measured\""));
    // --rows under-predicted: each device's measured row under its predicted row, in export too.
    const std::string rows = (dir / "rows.svg").string(), rowsExported = (dir / "rows-export.svg").string();
    REQUIRE(cli("overlay " + kOverlayProject + " " + trace + " -s 1f1b --rows under-predicted -o " + rows)
                .status == 0);
    REQUIRE(cli("export " + kOverlayProject + " -s 1f1b --trace " + trace + " --rows under-predicted -o " +
                rowsExported)
                .status == 0);
    const std::string paired = stagecraft::readTextFile(rows);
    CHECK(paired == stagecraft::readTextFile(rowsExported));
    CHECK_THAT(paired, Catch::Contains(">D0 predicted</text>") && Catch::Contains(">D7 predicted</text>") &&
                           Catch::Contains(", measured") && !Catch::Contains("class=\"op measured\""));
    const Run badRows = cli("overlay " + kOverlayProject + " " + trace + " -s 1f1b --rows under -o " + rows);
    CHECK(badRows.status == 2);
    CHECK_THAT(badRows.out, Catch::Contains("--rows"));
    const auto tikz = (dir / "overlay.tikz").string();
    REQUIRE(cli("overlay " + kOverlayProject + " " + trace + " -s 1f1b -o " + tikz).status == 0);
    // The picture alone, for \input (a .tex is a standalone document).
    CHECK_THAT(stagecraft::readTextFile(tikz),
               Catch::Contains("\\begin{tikzpicture}") && !Catch::Contains("\\documentclass"));
    std::filesystem::remove_all(dir);
}

TEST_CASE("overlay reads one iteration of a measured trace of several", "[cli][overlay]") {
    const auto dir = tempDir();
    const std::string predicted = (dir / "p.json").string(), measured = (dir / "m.json").string();
    REQUIRE(cli("export " + kOverlayProject + " -s 1f1b -o " + predicted).status == 0);
    writeTwoIterations(stagecraft::readChromeTrace(predicted), 1.1, measured);
    const std::string base = "overlay " + kOverlayProject + " " + measured + " -s 1f1b --json";

    const Run first = cli(base + " --iteration 0");
    INFO(first.out);
    REQUIRE(first.status == 0);
    const auto zero = nlohmann::json::parse(first.out);
    CHECK(zero["iteration"] == 0);
    CHECK(zero["iterations"] == nlohmann::json::array({0, 1}));
    CHECK(zero["makespan"]["error"] == 0.0);

    // The last iteration by default: 10% slower everywhere.
    const Run last = cli(base);
    REQUIRE(last.status == 0);
    const auto one = nlohmann::json::parse(last.out);
    CHECK(one["iteration"] == 1);
    CHECK(one["makespan"]["error"].get<double>() ==
          Approx(1 / 1.1 - 1).margin(1e-9)); // the prediction 9.1 % short
    for (const auto& device : one["devices"])
        CHECK(device["duration_ratio"].get<double>() == Approx(1.1).margin(1e-9));
    const Run text = cli("overlay " + kOverlayProject + " " + measured + " -s 1f1b");
    CHECK_THAT(text.out, Catch::Contains("(iteration 1 of 0..1)") && Catch::Contains("-9.09%"));

    const Run missing = cli(base + " --iteration 5");
    CHECK(missing.status == 2);
    CHECK_THAT(missing.out, Catch::Contains("iteration 5 is not in the trace; it holds iterations 0, 1"));
    // The reading options are core's table: its rules and messages (as the export and the viewer).
    const Run negative = cli(base + " --iteration -2");
    CHECK(negative.status == 2);
    CHECK_THAT(negative.out, Catch::Contains("--iteration -2: must be a whole number"));
    const Run placement = cli(base + " --placement zigzag");
    CHECK(placement.status == 2);
    CHECK_THAT(placement.out, Catch::Contains("--placement zigzag: must be one of loop, v"));
    std::filesystem::remove_all(dir);
}

TEST_CASE("overlay refuses a trace of another schedule or shape with status 2", "[cli][overlay]") {
    const auto dir = tempDir();
    const std::string trace = (dir / "gpipe.json").string();
    REQUIRE(cli("export " + kOverlayProject + " -s gpipe -o " + trace).status == 0);
    const Run other = cli("overlay " + kOverlayProject + " " + trace + " -s 1f1b");
    CHECK(other.status == 2);
    CHECK_THAT(other.out,
               Catch::Contains(trace + ": the trace is of schedule 'gpipe', which is not among the "
                                       "schedules evaluated (1f1b)"));
    const Run shape =
        cli("overlay " + kOverlayProject + " " + trace + " -s gpipe --set parallel.microbatches=16");
    CHECK(shape.status == 2);
    CHECK_THAT(shape.out,
               Catch::Contains("the timelines have different shapes: microbatches = 16 predicted, 32 "
                               "measured"));
    CHECK(cli("overlay " + kOverlayProject + " -s gpipe").status == 2); // the trace is required
    const Run format =
        cli("overlay " + kOverlayProject + " " + trace + " -s gpipe -o " + (dir / "c.xyz").string());
    CHECK(format.status == 2);
    CHECK_THAT(format.out, Catch::Contains("not a chart"));
    std::filesystem::remove_all(dir);
}

TEST_CASE("A file of another kind is refused from its first bytes, naming what reads it", "[cli]") {
    const auto dir = tempDir();
    const std::string trace = (dir / "kind_trace.json").string();
    REQUIRE(cli("export -s 1f1b -o " + trace).status == 0);
    // validate reads schedules and projects: a trace is named as one, with the commands that read it.
    const Run validate = cli("validate " + trace);
    CHECK(validate.status == 2);
    CHECK_THAT(validate.out, Catch::Contains("is a Chrome trace, not a project") &&
                                 Catch::Contains("stagecraft-cli overlay PROJECT TRACE"));
    const Run show = cli("show " + trace);
    CHECK(show.status == 2);
    CHECK_THAT(show.out, Catch::Contains("[io.kind]") || Catch::Contains("is a Chrome trace"));
    // overlay reads traces: a project in the trace's place is named as one.
    const Run overlay = cli("overlay -s 1f1b " + kSamples + "zb-6.2b.stagecraft.json " + kSamples +
                            "zb-6.2b.stagecraft.json");
    CHECK(overlay.status == 2);
    CHECK_THAT(overlay.out, Catch::Contains("is a Stagecraft project, not a Chrome trace"));
    std::filesystem::remove(trace);
}
