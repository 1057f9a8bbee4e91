// stagecraft-cli fidelity on the torch profiler traces torch wrote of torch.distributed.pipelining
// runs (tests/data/torch-traces/): the fit, a held-out check, predictions of registered schedules
// and the refusals a user meets.
#include "cli_run.h"

#include <algorithm>
#include <catch2/catch.hpp>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <nlohmann/json.hpp>
#include <string>

namespace {

using stagecraft::test::cli;
using stagecraft::test::Run;

const std::string kTraces = std::string(STAGECRAFT_SOURCE_DIR) + "/tests/data/torch-traces/";

std::string run(const std::string& name) {
    return kTraces + name + "_rank0.json," + kTraces + name + "_rank1.json";
}

} // namespace

TEST_CASE("fidelity fits one torch run, checks another and predicts registered schedules",
          "[cli][fidelity]") {
    const Run r = cli("fidelity --fit " + run("ZBVZeroBubble_pp2_m4") + " --check " +
                      run("Interleaved1F1B_pp2_m4") + " --predict 1f1b,zb-v,chimera,no-such --json");
    INFO(r.out);
    REQUIRE(r.status == 0);
    const auto json = nlohmann::json::parse(r.out);
    CHECK(json["model"] == "torch-gloo");
    CHECK(json["stages"].size() == 4);
    // torch's first stage computes nothing in I and the whole backward in W.
    CHECK(json["stages"][0]["i_us"].get<double>() < 0.1 * json["stages"][0]["w_us"].get<double>());
    CHECK(json["residual"]["matched_ops"] == 48);
    // The posts that stalled, as counted: every post is near the peer's or not.
    const auto& stalls = json["post_stalls"];
    CHECK(stalls["iterations"] == json["iterations"]);
    CHECK(stalls["near_posts"].get<int>() + stalls["other_posts"].get<int>() > 0);
    CHECK(stalls["near_stalls"].get<int>() <= stalls["near_posts"].get<int>());
    CHECK(stalls["near_window_us"].get<double>() > 0);
    // The send-first payloads, by what their sender did when the consumer began to wait.
    const auto& held = json["held_payloads"];
    CHECK(held["iterations"] == json["iterations"]);
    CHECK(held["transfer_us"].get<double>() == Approx(json["transfer_us"].get<double>()));
    CHECK(held["held_over_us"].get<double>() == 500);
    int sendFirst = 0;
    for (const char* state : {"blocked", "computing", "other"}) {
        INFO(state);
        const auto& s = held["by_sender"][state];
        CHECK(s["held"].get<int>() <= s["transfers"].get<int>());
        CHECK(s["held_past_transfer_us"].get<double>() >= 500 * s["held"].get<double>());
        sendFirst += s["transfers"].get<int>();
    }
    CHECK(sendFirst > 0);
    // Each checked run is counted the same way, to read its miss against the fitted run's.
    const auto& checked = json["checks"][0];
    CHECK(checked["post_stalls"]["iterations"].get<int>() > 0);
    CHECK(checked["held_payloads"]["iterations"] == checked["post_stalls"]["iterations"]);
    CHECK(checked["held_payloads"]["by_sender"]["computing"]["transfers"].get<int>() >= 0);
    // The worst rank's busy time error, from the ranks the report lists.
    double busy = 0;
    const auto& residual = json["residual"];
    for (std::size_t d = 0; d < residual["measured_ranks"].size(); ++d)
        busy = std::max(busy, std::abs(residual["predicted_ranks"][d]["compute_us"].get<double>() /
                                           residual["measured_ranks"][d]["compute_us"].get<double>() -
                                       1));
    CHECK(residual["busy_error"].get<double>() == Approx(busy));
    // How far the run's iterations and the replay's draws spread, each around its median.
    for (const char* side : {"measured", "predicted"}) {
        INFO(side);
        const auto& range = residual[std::string(side) + "_makespan_p10_p90_us"];
        const double median = residual[std::string(side) + "_makespan_us"].get<double>();
        CHECK(range[0].get<double>() > 0);
        CHECK(range[0].get<double>() <= median);
        CHECK(median <= range[1].get<double>());
        CHECK(range[0].get<double>() < range[1].get<double>());
    }
    // The critical path of the run and of the replay: a 2-rank run crosses transfers, and its parts
    // come to about its makespan (each part a median of its own, so not exactly).
    for (const char* side : {"measured", "predicted"}) {
        INFO(side);
        const auto& path = residual[std::string(side) + "_critical_path"];
        double total = 0;
        for (const char* part :
             {"compute_us", "transfers_us", "comm_us", "waits_us", "bookkeeping_us", "gaps_us"}) {
            CHECK(path[part].get<double>() >= 0);
            total += path[part].get<double>();
        }
        CHECK(path["hops"].get<double>() >= 1);
        CHECK(path["compute_us"].get<double>() > 0);
        CHECK(total == Approx(residual[std::string(side) + "_makespan_us"].get<double>()).epsilon(0.15));
    }
    REQUIRE(json["checks"].size() == 1);
    CHECK(json["checks"][0]["matched_ops"] == 32);
    CHECK(json["checks"][0]["measured_critical_path"]["compute_us"].get<double>() > 0);
    CHECK(json["checks"][0]["predicted_makespan_us"].get<double>() > 0);
    REQUIRE(json["predictions"].size() == 4);
    CHECK(json["predictions"][0]["schedule"] == "1f1b");
    CHECK(json["predictions"][0]["runtime"] == "1f1b-loop");
    CHECK(json["predictions"][1]["makespan_us"].get<double>() > 0);
    // torch runs one pipe: two are timed with Stagecraft's lowering at the fitted costs.
    CHECK(json["predictions"][2]["runtime"] == "stagecraft");
    CHECK(json["predictions"][2]["makespan_us"].get<double>() > 0);
    CHECK(json["predictions"][3]["refused"].get<std::string>().find("unknown schedule") != std::string::npos);

    // A run named by the prefix of its per-rank files.
    const Run text = cli("fidelity --fit " + kTraces + "Interleaved1F1B_pp2_m4");
    INFO(text.out);
    REQUIRE(text.status == 0);
    CHECK(text.out.find("fitted torch-gloo") != std::string::npos);
    CHECK(text.out.find("I and W are not measured") != std::string::npos);
    CHECK(text.out.find("ends last") != std::string::npos);
    CHECK(text.out.find("the run's iterations") != std::string::npos);
    CHECK(text.out.find("the replay's draws") != std::string::npos);
    CHECK(text.out.find("the critical path, measured / predicted ms (medians): compute ") !=
          std::string::npos);
    const Run checkedText =
        cli("fidelity --fit " + kTraces + "ZBVZeroBubble_pp2_m4 --check " + run("Interleaved1F1B_pp2_m4"));
    INFO(checkedText.out);
    REQUIRE(checkedText.status == 0);
    CHECK(checkedText.out.find("\nthis run: posts stalled ") != std::string::npos);
    CHECK(checkedText.out.find("; payloads held ") != std::string::npos);
    CHECK(checkedText.out.find("\nthe fitted run: posts stalled ") != std::string::npos);

    // The predictions as text: a long note or refusal sits at the end of its own line and widens
    // no other row (the notes column is text, not padded), and no line ends in spaces.
    const Run table =
        cli("fidelity --fit " + kTraces + "ZBVZeroBubble_pp2_m4 --predict 1f1b,chimera,no-such");
    INFO(table.out);
    REQUIRE(table.status == 0);
    const auto lineWith = [&](const std::string& start) {
        const std::size_t at = table.out.find("\n" + start);
        REQUIRE(at != std::string::npos);
        return table.out.substr(at + 1, table.out.find('\n', at + 1) - at - 1);
    };
    const std::string oneF = lineWith("1f1b ");
    const std::string refused = lineWith("no-such ");
    CHECK(refused.find("refused: [schedule.unknown]") != std::string::npos);
    // Ends with its own note, not padded to the refusal's width.
    CHECK(oneF.size() < refused.size());
    CHECK(oneF.substr(oneF.size() - 12) == "of the model");
    CHECK(table.out.find(" \n") == std::string::npos);

    // A run that is not there is said to be missing (not "not a torch profiler trace").
    const Run missing = cli("fidelity --fit " + kTraces + "NoSuchRun");
    CHECK(missing.status == 2);
    CHECK(missing.out.find("no such file, and no run with that prefix") != std::string::npos);
}

TEST_CASE("fidelity writes a fit file, predicts from it, and draws the run above its prediction",
          "[cli][fidelity]") {
    const std::filesystem::path dir = std::filesystem::temp_directory_path() / "stagecraft-fidelity-test";
    std::filesystem::remove_all(dir);
    std::filesystem::create_directories(dir);
    const std::string fitFile = (dir / "zbv.fit.json").string();
    const Run fit = cli("fidelity --fit " + run("ZBVZeroBubble_pp2_m4") + " -o " + fitFile + " --json");
    INFO(fit.out);
    REQUIRE(fit.status == 0);
    const auto fitted = nlohmann::json::parse(fit.out);

    const std::string svg = (dir / "check.svg").string();
    const Run again = cli("fidelity --costs " + fitFile + " --check " + run("Interleaved1F1B_pp2_m4") +
                          " --chart " + svg + " --json");
    INFO(again.out);
    REQUIRE(again.status == 0);
    const auto reread = nlohmann::json::parse(again.out);
    CHECK(reread["stages"] == fitted["stages"]);
    CHECK(reread["residual"]["makespan_error"] == fitted["residual"]["makespan_error"]);
    REQUIRE(reread["checks"].size() == 1);
    // A fit file keeps the fitted run's counts as notes only; the checked run is counted anew.
    CHECK(reread["post_stalls"].is_null());
    CHECK(reread["held_payloads"].is_null());
    CHECK(reread["checks"][0]["held_payloads"]["iterations"].get<int>() > 0);
    std::ifstream in(svg);
    const std::string drawn((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    CHECK(drawn.find("<svg") != std::string::npos);
    // Each device's measured row under its predicted row, titled with the run.
    CHECK(drawn.find(">Interleaved1F1B_pp2_m4<") != std::string::npos);
    CHECK(drawn.find(">D0 predicted<") != std::string::npos);
    CHECK(drawn.find(">D1 predicted<") != std::string::npos);
    CHECK(drawn.find(">measured<") != std::string::npos);
    CHECK(drawn.find(">D0 predicted<") < drawn.find(">measured<"));
    CHECK(drawn.find(", measured\nmeasured: starts ") != std::string::npos); // the hover text
    CHECK(drawn.find("predicted (torch-gloo fit)") != std::string::npos);

    // The predicted schedules stacked, as torch would run them on the fitted machine.
    const std::string stacked = (dir / "predicted.svg").string();
    const Run predicted =
        cli("fidelity --costs " + fitFile + " --predict 1f1b,zb-v,no-such --predict-chart " + stacked);
    INFO(predicted.out);
    REQUIRE(predicted.status == 0);
    std::ifstream pin(stacked);
    const std::string panels((std::istreambuf_iterator<char>(pin)), std::istreambuf_iterator<char>());
    CHECK(panels.find(">1f1b<") != std::string::npos);
    CHECK(panels.find(">zb-v<") != std::string::npos);
    CHECK(panels.find("torch 1f1b-loop") != std::string::npos);
    CHECK(panels.find(">no-such<") == std::string::npos); // refused, left out
    CHECK(cli("fidelity --costs " + fitFile + " --predict-chart " + stacked).status == 2); // needs --predict

    // --chart needs a chart extension, --costs and --fit exclude each other.
    CHECK(cli("fidelity --costs " + fitFile + " --check " + run("Interleaved1F1B_pp2_m4") + " --chart x.txt")
              .status == 2);
    CHECK(cli("fidelity --costs " + fitFile + " --fit " + run("Interleaved1F1B_pp2_m4")).status == 2);
    // A damaged fit file names the field.
    {
        std::ofstream out(dir / "bad.fit.json");
        std::string text = nlohmann::json::parse(std::ifstream(fitFile)).dump();
        text.replace(text.find("\"gap\":"), 6, "\"gap\":-1,\"x\":");
        out << text;
    }
    const Run bad = cli("fidelity --costs " + (dir / "bad.fit.json").string());
    CHECK(bad.status == 2);
    CHECK(bad.out.find("actions_us.gap") != std::string::npos);
    std::filesystem::remove_all(dir);
}

TEST_CASE("fidelity refuses what it cannot fit or predict with a message and status 2", "[cli][fidelity]") {
    const Run missing = cli("fidelity --fit " + kTraces + "nothing_rank0.json");
    CHECK(missing.status == 2);
    CHECK(missing.out.find("nothing_rank0.json") != std::string::npos);

    // A split schedule needs I and W, which a run that did not split its backward did not measure.
    const Run split =
        cli("fidelity --fit " + run("Interleaved1F1B_pp2_m4") + " --check " + run("ZBVZeroBubble_pp2_m4"));
    CHECK(split.status == 2);
    CHECK(split.out.find("no measured cost of B on stage") != std::string::npos);

    // One rank's file of a two-rank run, a Stagecraft trace, and a run without compute labels.
    const Run oneRank = cli("fidelity --fit " + kTraces + "Interleaved1F1B_pp2_m4_rank0.json");
    CHECK(oneRank.status == 2);
    CHECK(oneRank.out.find("give the trace of every rank") != std::string::npos);
    const Run ours = cli("fidelity --fit " + std::string(STAGECRAFT_SOURCE_DIR) +
                         "/tests/data/host-traces/zb-h1_pp2_m4_host.json");
    CHECK(ours.status == 2);
    CHECK(ours.out.find("not a torch profiler trace") != std::string::npos);

    // A compute-only schedule file is not a trace.
    const Run csv = cli("fidelity --fit " + kTraces + "Interleaved1F1B_pp2_m4.csv");
    CHECK(csv.status == 2);

    const Run badShare =
        cli("fidelity --fit " + run("Interleaved1F1B_pp2_m4") + " --predict zb-v --input-share 2");
    CHECK(badShare.status == 2);
}
