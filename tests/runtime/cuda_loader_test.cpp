// The CUDA layer's loader and the host-side logic of its module. Runs everywhere: without a GPU
// (or without the module) probeCuda() must say why and createCudaLayer() must throw; with a GPU
// the layer must run one rank end to end. The pure parts of the module (dtype names, the
// row-major to cuBLAS mapping, MPI tags, the communicator plan) are checked on the host.
#include "backends/cuda/comm_plan.h"
#include "backends/cuda/dtype.h"
#include "backends/cuda/gemm_mapping.h"
#include "backends/cuda/mpi_tag.h"
#include "backends/cuda_module.h"

#include <catch2/catch.hpp>
#include <filesystem>
#include <functional>
#include <string>
#include <vector>

#ifdef STAGECRAFT_CUDA_MODULE_PATH
#include <mpi.h>
#endif

using namespace stagecraft::runtime;
using namespace stagecraft::runtime::cuda;

namespace {

std::string thrownMessage(const std::function<void()>& call) {
    try {
        call();
    } catch (const BackendError& e) {
        return e.what();
    }
    return {};
}

} // namespace

TEST_CASE("The CUDA layer module is built next to the runtime", "[cuda][loader]") {
#ifdef STAGECRAFT_CUDA_MODULE_PATH
    CHECK(std::filesystem::exists(STAGECRAFT_CUDA_MODULE_PATH));
    CHECK(std::filesystem::path(STAGECRAFT_CUDA_MODULE_PATH).filename() == kCudaModuleFileName);
#else
    WARN("this build has no CUDA layer module (CUDA, NCCL or MPI missing)");
#endif
}

TEST_CASE("probeCuda says what it found, with or without a GPU", "[cuda][loader]") {
    const CudaProbe probe = probeCuda();
    INFO(probe.message);
    CHECK_FALSE(probe.message.empty());
#ifdef STAGECRAFT_CUDA_MODULE_PATH
    CHECK(probe.moduleFound);
#endif
    CHECK(probe.devices >= 0);
    const CudaProbe again = probeCuda(); // the module is loaded once
    CHECK(again.moduleFound == probe.moduleFound);
    CHECK(again.devices == probe.devices);

    if (probe.devices == 0) {
        // No module, no driver or no device: creating a layer fails with the same reason.
        const std::string why = thrownMessage([] { createCudaLayer(CudaLayerOptions{}); });
        INFO(why);
        CHECK_FALSE(why.empty());
        if (probe.moduleFound) {
            CHECK_THAT(why, Catch::Contains("no CUDA device for the CUDA layer"));
            CHECK_THAT(why, Catch::Contains("cudaGetDeviceCount"));
        } else {
            CHECK_THAT(why, Catch::Contains(kCudaModuleFileName));
        }
    } else {
        const auto layer = createCudaLayer(CudaLayerOptions{});
        REQUIRE(layer);
        CHECK_THAT(layer->describe(), Catch::StartsWith("cuda: ") && Catch::Contains("sm_"));
        CHECK(layer->elementBytes() == 4);
    }
}

#ifdef STAGECRAFT_CUDA_MODULE_PATH
namespace {

// One singleton MPI_Init for the process, finalized at exit after every layer is gone.
struct MpiSession {
    MpiSession() {
        int initialized = 0;
        MPI_Initialized(&initialized);
        if (initialized) return;
        int provided = 0;
        owned = MPI_Init_thread(nullptr, nullptr, MPI_THREAD_SINGLE, &provided) == MPI_SUCCESS;
    }
    ~MpiSession() {
        if (owned) MPI_Finalize();
    }
    bool owned = false;
};

void runOneRank(bool mpiTransport, const std::string& dtype) {
    static MpiSession mpi;
    INFO((mpiTransport ? "host-staged MPI, " : "NCCL, ") + dtype);
    const auto layer = createCudaLayer(CudaLayerOptions{0, mpiTransport});
    LayerSetup setup;
    setup.collectives = {{0}};
    setup.dtype = dtype;
    setup.records = 4;
    layer->setup(setup);
    CHECK(layer->elementBytes() == (dtype == "fp32" ? 4u : 2u));
    layer->anchor();

    Gemm g;
    g.m = 64;
    g.n = 48;
    g.k = 32;
    g.batch = 2;
    g.strideA = g.m * g.k;
    g.strideB = g.k * g.n;
    g.strideC = g.m * g.n;
    g.a = {layer->allocate(2 * 64 * 32), 0};
    g.b = {layer->allocate(2 * 32 * 48), 0};
    g.c = {layer->allocate(2 * 64 * 48), 0};
    ComputeWork forward;
    forward.record = 0;
    forward.label = "PP:0F0";
    forward.gemms = {g};
    layer->compute(forward);
    ComputeWork sleep;
    sleep.record = 1;
    sleep.label = "PP:0B0";
    sleep.sleepUs = 200;
    layer->compute(sleep);
    AllReduce reduce;
    reduce.record = 2;
    reduce.label = "PP:0REDUCE_GRAD";
    reduce.collective = 0;
    reduce.data = g.c;
    reduce.elements = 64 * 48;
    const Request request = layer->allReduce(reduce);
    ComputeWork step;
    step.record = 3;
    step.label = "PP:0OPTIMIZER";
    step.axpys = {Axpy{64 * 48, -0.01f, g.c, g.a}};
    step.after = {request};
    layer->wait(request, Clock::now() + std::chrono::seconds(60));
    layer->compute(step);
    layer->finish(Clock::now() + std::chrono::seconds(60));

    std::vector<Stamp> stamps;
    layer->times(stamps);
    REQUIRE(stamps.size() == 4);
    for (const Stamp& s : stamps) {
        CHECK(s.start >= 0);
        CHECK(s.end >= s.start);
    }
    CHECK(stamps[1].end - stamps[1].start >= 150); // the spin waited about 200 µs
    CHECK(stamps[2].start >= stamps[1].end - 2);   // the all-reduce carries the computes before it
    CHECK(stamps[3].start >= stamps[2].end - 2);   // the step waited for the all-reduce
    for (Buffer b : {g.a.buffer, g.b.buffer, g.c.buffer}) layer->release(b);
}

} // namespace

TEST_CASE("With a GPU, one rank runs compute, an all-reduce and finish", "[cuda][gpu]") {
    if (probeCuda().devices == 0) {
        WARN("no CUDA device: the one-rank run is skipped");
        return;
    }
    runOneRank(false, "bf16");
    runOneRank(true, "fp32");
    runOneRank(true, "fp16");
}
#endif

TEST_CASE("dtype names parse case-insensitively and others are refused", "[cuda]") {
    CHECK(parseDType("fp32") == DType::F32);
    CHECK(parseDType("BF16") == DType::BF16);
    CHECK(parseDType("Fp16") == DType::F16);
    CHECK(dtypeBytes(DType::F32) == 4);
    CHECK(dtypeBytes(DType::BF16) == 2);
    CHECK(std::string(dtypeName(DType::F16)) == "fp16");
    CHECK_THAT(thrownMessage([] { parseDType("fp8"); }),
               Catch::Equals("unknown dtype \"fp8\" for the CUDA layer: expected fp32, fp16 or bf16"));
}

namespace {

// cuBLAS's definition: C (column-major, m x n) = op(A) · op(B) + beta · C.
void columnMajorGemm(const ColumnMajorGemm& c, const float* first, const float* second, float* out,
                     float beta) {
    for (std::int64_t i = 0; i < c.m; ++i)
        for (std::int64_t j = 0; j < c.n; ++j) {
            float sum = 0;
            for (std::int64_t p = 0; p < c.k; ++p) {
                const float a = c.transFirst ? first[p + i * c.ldFirst] : first[i + p * c.ldFirst];
                const float b = c.transSecond ? second[j + p * c.ldSecond] : second[p + j * c.ldSecond];
                sum += a * b;
            }
            out[i + j * c.ldC] = sum + beta * out[i + j * c.ldC];
        }
}

// The interface's definition: row-major, A is m x k (k x m when transA), B is k x n (n x k).
void rowMajorGemm(const Gemm& g, const float* a, const float* b, float* c) {
    for (std::int64_t i = 0; i < g.m; ++i)
        for (std::int64_t j = 0; j < g.n; ++j) {
            float sum = 0;
            for (std::int64_t p = 0; p < g.k; ++p)
                sum += (g.transA ? a[p * g.m + i] : a[i * g.k + p]) *
                       (g.transB ? b[j * g.k + p] : b[p * g.n + j]);
            c[i * g.n + j] = sum + (g.accumulate ? c[i * g.n + j] : 0.0f);
        }
}

} // namespace

TEST_CASE("A row-major Gemm maps to cuBLAS's column-major call with swapped operands", "[cuda][gemm]") {
    for (bool transA : {false, true})
        for (bool transB : {false, true})
            for (bool accumulate : {false, true}) {
                Gemm g;
                g.m = 3;
                g.n = 5;
                g.k = 4;
                g.transA = transA;
                g.transB = transB;
                g.accumulate = accumulate;
                g.batch = 2;
                g.strideA = 13; // padded batches: strides larger than a matrix
                g.strideB = 21;
                g.strideC = 16;
                INFO("transA " << transA << ", transB " << transB << ", accumulate " << accumulate);
                REQUIRE(gemmProblem(g).empty());
                CHECK(extentA(g) == 13 + 12);
                CHECK(extentB(g) == 21 + 20);
                CHECK(extentC(g) == 16 + 15);
                std::vector<float> a(extentA(g)), b(extentB(g)), expected(extentC(g)), actual(extentC(g));
                for (std::size_t i = 0; i < a.size(); ++i) a[i] = float(int(i * 7 % 11) - 5);
                for (std::size_t i = 0; i < b.size(); ++i) b[i] = float(int(i * 5 % 13) - 6);
                for (std::size_t i = 0; i < expected.size(); ++i) expected[i] = actual[i] = float(i % 3);

                const ColumnMajorGemm c = toColumnMajor(g);
                CHECK(c.m == g.n);
                CHECK(c.n == g.m);
                CHECK(c.batch == 2);
                for (int batch = 0; batch < g.batch; ++batch) {
                    rowMajorGemm(g, a.data() + batch * g.strideA, b.data() + batch * g.strideB,
                                 expected.data() + batch * g.strideC);
                    columnMajorGemm(c, b.data() + batch * c.strideFirst, a.data() + batch * c.strideSecond,
                                    actual.data() + batch * c.strideC, accumulate ? 1.0f : 0.0f);
                }
                CHECK(actual == expected);
            }
}

TEST_CASE("GEMMs cuBLAS cannot run are refused with the reason", "[cuda][gemm]") {
    Gemm g;
    g.m = 4;
    g.n = 4;
    g.k = 4;
    CHECK(gemmProblem(g).empty());
    g.batch = 2;
    g.strideC = 8;
    CHECK_THAT(gemmProblem(g), Catch::Contains("the batches would overwrite each other"));
    g.strideC = 16;
    CHECK(gemmProblem(g).empty());
    g.k = -1;
    CHECK_THAT(gemmProblem(g), Catch::Contains("negative dimension"));
    g.k = std::int64_t(1) << 31;
    CHECK_THAT(gemmProblem(g), Catch::Contains("32-bit"));
    Gemm empty;
    CHECK(extentA(empty) == 0);
    const ColumnMajorGemm c = toColumnMajor(empty);
    CHECK(c.ldFirst == 1); // cuBLAS wants leading dimensions of at least 1
}

TEST_CASE("Transfer tags map into MPI's tag range", "[cuda][mpi]") {
    CHECK(mpiTag(0, 32767) == 0);
    CHECK(mpiTag(32767, 32767) == 32767);
    CHECK(mpiTag(32768, 32767) == 0);
    CHECK(mpiTag(100000, 32767) == 100000 % 32768);
    CHECK(mpiTag((std::int64_t(1) << 40) + 5, 2147483647) == 5);
    CHECK_THAT(thrownMessage([] { mpiTag(-1, 32767); }), Catch::Contains("negative"));
}

TEST_CASE("Communicators are planned in one order for all ranks", "[cuda][plan]") {
    // A 3-stage pipeline, a gradient collective over ranks 2 and 0, one of rank 1 alone.
    const auto plan = planCommunicators(3, {{1}, {2, 0}, {1}}, {{2, 0}, {1}});
    REQUIRE(plan.size() == 6);
    std::vector<std::string> names;
    for (const CommSpec& spec : plan) names.push_back(spec.name);
    CHECK(names == std::vector<std::string>{"edge 0->1", "edge 1->0", "edge 1->2", "edge 2->1",
                                            "collective 0 (ranks 2,0)", "collective 1 (ranks 1)"});
    CHECK(plan[1].members == std::vector<int>{1, 0}); // the sender is rank 0 of its edge
    CHECK(plan[1].owner() == 0);
    CHECK(plan[4].members == std::vector<int>{2, 0}); // list order: rank 2 is rank 0 of the collective
    CHECK(plan[4].owner() == 0);
    CHECK(plan[4].indexOf(0) == 1);
    CHECK(plan[4].indexOf(1) == -1);
    CHECK(plan[5].collective == 1);
}

TEST_CASE("Inconsistent peers and collectives are refused", "[cuda][plan]") {
    CHECK_THAT(
        thrownMessage([] {
            planCommunicators(3, {{1}, {0, 2}, {}}, {});
        }),
        Catch::Equals("communicator plan: rank 1 exchanges tensors with rank 2 but rank 2 does not list "
                      "rank 1 among its peers"));
    CHECK_THAT(thrownMessage([] {
                   planCommunicators(2, {{0}, {}}, {});
               }),
               Catch::Contains("which is itself"));
    CHECK_THAT(thrownMessage([] {
                   planCommunicators(2, {{5}, {}}, {});
               }),
               Catch::Contains("not a rank of this run (0..1)"));
    CHECK_THAT(thrownMessage([] { planCommunicators(2, {{1, 1}, {0}}, {}); }), Catch::Contains("twice"));
    CHECK_THAT(thrownMessage([] {
                   planCommunicators(2, {{}, {}}, {{0, 0}});
               }),
               Catch::Equals("communicator plan: collective 0 names rank 0 twice"));
    CHECK_THAT(thrownMessage([] { planCommunicators(2, {{}, {}}, {{}}); }), Catch::Contains("has no ranks"));
    CHECK_THAT(thrownMessage([] { planCommunicators(2, {{}}, {}); }),
               Catch::Contains("1 peer lists for 2 ranks"));
}
