#pragma once
// A device layer for testing the executor's ordering logic: its streams are queues in virtual
// time, as CUDA streams are queues on a device (a compute stream, one stream per peer and
// direction, one per collective). Work starts when its stream is free and what it waits for has
// ended; the host's virtual clock moves only while the executor polls. It records every operation
// on a buffer with the memory it reads and writes, and reports any two that overlap in time and
// memory where one writes (a data race: a slot reused before its transfers ended), and the most
// records issued and not yet finished (the run-ahead window). It is not a model of CUDA: it tests
// our logic, nothing about a GPU.

#include "exec/device_layer.h"

#include <limits>
#include <string>
#include <vector>

namespace stagecraft::runtime::testing {

class VirtualLayer final : public DeviceLayer {
  public:
    static constexpr double kNever = std::numeric_limits<double>::infinity();

    /// Transfers with `hungPeer` never complete (a peer that stopped). `gemmUs`: each GEMM's
    /// duration; `transferUs`: each receive's and all-reduce's; `sendUs`: each send's (a send
    /// completes when its peer has received, which may be much later).
    struct Options {
        int hungPeer = -1;
        double gemmUs = 5;
        double transferUs = 20;
        double sendUs = 20;
        double pollStepUs = 1; ///< virtual time that passes per poll of the host
    };
    explicit VirtualLayer(Options options) : m_options(options) {}

    std::string describe() const override { return "virtual"; }
    std::size_t elementBytes() const override { return 4; }
    void setup(const LayerSetup& setup) override;
    void anchor() override { m_anchor = Clock::now(); }
    Clock::time_point anchorTime() const override { return m_anchor; }
    void reanchor() override {}
    Buffer allocate(std::uint64_t elements) override;
    void release(Buffer) override {}
    std::uint64_t allocations() const override { return m_allocations; }
    void reuse(Buffer buffer) override;
    std::uint64_t residentBytes(const std::vector<Buffer>& buffers) override;
    void compute(const ComputeWork& work) override;
    void beginGroup() override { ++m_groupDepth; }
    void endGroup() override { --m_groupDepth; }
    Request send(const Transfer& transfer) override;
    Request recv(const Transfer& transfer) override;
    Request allReduce(const AllReduce& reduce) override;
    void wait(Request request, Clock::time_point deadline) override;
    void progress() override {}
    bool completed(Request request) override;
    bool recordDone(std::int32_t record) override;
    std::string asyncError() override { return {}; }
    void finish(Clock::time_point deadline) override;
    void times(std::vector<Stamp>& stamps) override;
    void abort(std::chrono::milliseconds) noexcept override { m_aborted = true; }

    /// Data races seen (each described), the most records issued and unfinished at once.
    const std::vector<std::string>& races() const { return m_races; }
    int mostInFlight() const { return m_mostInFlight; }
    /// [record of a compute]: the records of the requests it was given as its next op's inputs
    /// (ComputeWork::next), and of every request posted before it, in the last iteration.
    const std::vector<std::vector<std::int32_t>>& nextInputs() const { return m_nextInputs; }
    const std::vector<std::vector<std::int32_t>>& postedBefore() const { return m_postedBefore; }
    bool aborted() const { return m_aborted; }

  private:
    struct Access {
        double start = 0, end = 0;
        std::uint64_t begin = 0, stop = 0; ///< elements [begin, stop)
        bool writes = false;
        std::string what;
    };
    struct Stream {
        double busy = 0;
    };
    struct Pending {
        std::int32_t record = -1;
        double end = 0;
    };
    Stream& lane(const std::string& name);
    /// Records an access and reports races with earlier ones on the buffer.
    void access(Buffer buffer, Access a);
    void issued(std::int32_t record, double end);
    Request post(std::int32_t record, const std::string& label, const std::string& laneName,
                 const Operand& data, std::uint64_t elements, bool writes, bool sendsData, int peer);

    Options m_options;
    Clock::time_point m_anchor = Clock::now();
    double m_host = 0; ///< the host's virtual clock
    Stream m_compute;
    std::vector<std::pair<std::string, Stream>> m_lanes;
    std::vector<std::uint64_t> m_sizes;
    std::vector<double> m_ready; ///< [buffer]: other streams wait for this (fill, computes, reuse)
    std::vector<std::vector<Access>> m_accesses;
    std::vector<Pending> m_requests;
    std::vector<double> m_recordEnd; ///< [record]: end in virtual time, NaN: not issued
    std::vector<Stamp> m_stamps;
    std::vector<std::string> m_races;
    std::vector<std::vector<std::int32_t>> m_nextInputs, m_postedBefore;
    std::uint64_t m_allocations = 0;
    int m_groupDepth = 0;
    int m_mostInFlight = 0;
    bool m_aborted = false;
};

} // namespace stagecraft::runtime::testing
