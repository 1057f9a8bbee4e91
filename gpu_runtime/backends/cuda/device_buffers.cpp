#include "backends/cuda/device_buffers.h"

#include "backends/cuda/cuda_kernels.h"

#include <algorithm>
#include <cstdio>
#include <limits>

namespace stagecraft::runtime::cuda {

std::string formatBytes(std::uint64_t bytes) {
    char text[64];
    const double gib = double(bytes) / double(1ull << 30);
    if (gib >= 1)
        std::snprintf(text, sizeof text, "%.2f GiB", gib);
    else
        std::snprintf(text, sizeof text, "%.2f MiB", double(bytes) / double(1ull << 20));
    return std::string(text) + " (" + std::to_string(bytes) + " bytes)";
}

DeviceBuffers::DeviceBuffers(int device, cudaStream_t compute) : m_compute(compute) {
    int supported = 0;
    SC_CUDA_CHECK(cudaDeviceGetAttribute(&supported, cudaDevAttrMemoryPoolsSupported, device));
    if (!supported)
        throw BackendError("device " + std::to_string(device) +
                           " does not support stream-ordered memory pools (cudaMallocAsync), which the CUDA "
                           "layer needs to allocate without synchronizing the device [" +
                           errorContext() + "]");
    cudaMemPoolProps props{};
    props.allocType = cudaMemAllocationTypePinned;
    props.handleTypes = cudaMemHandleTypeNone;
    props.location.type = cudaMemLocationTypeDevice;
    props.location.id = device;
    SC_CUDA_CHECK(cudaMemPoolCreate(&m_pool, &props));
    // Keep freed memory in the pool: giving it back to the driver at every synchronization would
    // make the next iteration allocate it again.
    std::uint64_t keep = std::numeric_limits<std::uint64_t>::max();
    SC_CUDA_CHECK(cudaMemPoolSetAttribute(m_pool, cudaMemPoolAttrReleaseThreshold, &keep));
    int off = 0;
    SC_CUDA_CHECK(cudaMemPoolSetAttribute(m_pool, cudaMemPoolReuseAllowInternalDependencies, &off));
    int leastPriority = 0, greatestPriority = 0;
    SC_CUDA_CHECK(cudaDeviceGetStreamPriorityRange(&leastPriority, &greatestPriority));
    m_release = makeStream(leastPriority);
    m_scratch = makeSyncEvent();
}

DeviceBuffers::~DeviceBuffers() {
    for (auto& [id, s] : m_buffers) SC_CUDA_LOG(cudaFreeAsync(s.data, m_release.get()));
    m_buffers.clear();
    if (m_release) SC_CUDA_LOG(cudaStreamSynchronize(m_release.get()));
    if (m_pool) SC_CUDA_LOG(cudaMemPoolDestroy(m_pool));
}

void DeviceBuffers::setType(DType type) {
    if (type != m_type && !m_buffers.empty())
        throw BackendError(std::string("the element type changes to ") + dtypeName(type) + " while " +
                           std::to_string(m_buffers.size()) + " " + dtypeName(m_type) +
                           " buffers exist: call setup before allocate");
    m_type = type;
}

Buffer DeviceBuffers::allocate(std::uint64_t elements) {
    const std::uint64_t elementBytes = dtypeBytes(m_type);
    if (elements > std::numeric_limits<std::uint64_t>::max() / elementBytes)
        throw BackendError("allocate: " + std::to_string(elements) + " elements overflow a byte count");
    if (m_next == std::numeric_limits<Buffer>::max())
        throw BackendError("allocate: the layer ran out of buffer ids [" + errorContext() + "]");
    const std::uint64_t bytes = elements * elementBytes;
    void* data = nullptr;
    // At least one element, so that every buffer has a distinct, valid address.
    const cudaError_t error =
        cudaMallocFromPoolAsync(&data, std::size_t(std::max(bytes, elementBytes)), m_pool, m_compute);
    if (error == cudaErrorMemoryAllocation) {
        (void)cudaGetLastError(); // not sticky: clear it so that later checks do not see it
        throwOutOfMemory(elements, bytes);
    }
    SC_CUDA_CHECK(error);
    const Buffer id = m_next++;
    SC_CUDA_CHECK(launchFill(data, elements, m_type, std::uint64_t(id) + 1, m_compute));
    State s;
    s.data = data;
    s.elements = elements;
    s.bytes = bytes;
    if (!m_spareEvents.empty()) {
        s.computeDone = std::move(m_spareEvents.back());
        m_spareEvents.pop_back();
    } else {
        s.computeDone = makeSyncEvent();
    }
    SC_CUDA_CHECK(cudaEventRecord(s.computeDone.get(), m_compute));
    m_buffers.emplace(id, std::move(s));
    m_liveBytes += bytes;
    return id;
}

void DeviceBuffers::throwOutOfMemory(std::uint64_t elements, std::uint64_t bytes) const {
    std::size_t freeBytes = 0, totalBytes = 0;
    const bool known = cudaMemGetInfo(&freeBytes, &totalBytes) == cudaSuccess;
    std::uint64_t reserved = 0;
    const bool pool =
        cudaMemPoolGetAttribute(m_pool, cudaMemPoolAttrReservedMemCurrent, &reserved) == cudaSuccess;
    (void)cudaGetLastError();
    std::string message = "out of device memory: allocating " + std::to_string(elements) + " " +
                          dtypeName(m_type) + " elements, " + formatBytes(bytes) + ", failed; ";
    message += known ? "the device has " + formatBytes(freeBytes) + " free of " + formatBytes(totalBytes)
                     : std::string("the free memory is unknown");
    message += "; this rank's live buffers hold " + formatBytes(m_liveBytes);
    if (pool) message += " and its pool reserves " + formatBytes(reserved);
    message += " [" + errorContext() + "]";
    throw BackendError(message);
}

DeviceBuffers::State& DeviceBuffers::state(Buffer buffer, const char* what) {
    const auto it = m_buffers.find(buffer);
    if (it == m_buffers.end())
        throw BackendError(std::string(what) + ": buffer " + std::to_string(buffer) +
                           (buffer >= 0 && buffer < m_next ? " was released" : " was never allocated"));
    return it->second;
}

const DeviceBuffers::State& DeviceBuffers::state(Buffer buffer, const std::string& what) const {
    const auto it = m_buffers.find(buffer);
    if (it == m_buffers.end())
        throw BackendError(what + ": buffer " + std::to_string(buffer) +
                           (buffer >= 0 && buffer < m_next ? " was released" : " was never allocated"));
    return it->second;
}

void DeviceBuffers::release(Buffer buffer) {
    State& s = state(buffer, "release");
    // The free runs on the release stream once every stream that used the buffer has passed the
    // point where release() was called.
    SC_CUDA_CHECK(cudaEventRecord(m_scratch.get(), m_compute));
    SC_CUDA_CHECK(cudaStreamWaitEvent(m_release.get(), m_scratch.get(), 0));
    for (cudaStream_t stream : s.streams) {
        SC_CUDA_CHECK(cudaEventRecord(m_scratch.get(), stream));
        SC_CUDA_CHECK(cudaStreamWaitEvent(m_release.get(), m_scratch.get(), 0));
    }
    SC_CUDA_CHECK(cudaFreeAsync(s.data, m_release.get()));
    m_liveBytes -= s.bytes;
    m_spareEvents.push_back(std::move(s.computeDone));
    m_buffers.erase(buffer);
}

void* DeviceBuffers::address(const Operand& operand, std::uint64_t elements, const std::string& what) const {
    const State& s = state(operand.buffer, what);
    if (operand.offset > s.elements || elements > s.elements - operand.offset)
        throw BackendError(what + ": elements [" + std::to_string(operand.offset) + ", " +
                           std::to_string(operand.offset + elements) + ") of buffer " +
                           std::to_string(operand.buffer) + " run past its " + std::to_string(s.elements) +
                           " elements");
    return static_cast<std::byte*>(s.data) + operand.offset * dtypeBytes(m_type);
}

void DeviceBuffers::useOn(Buffer buffer, cudaStream_t stream) {
    State& s = state(buffer, "transfer");
    SC_CUDA_CHECK(cudaStreamWaitEvent(stream, s.computeDone.get(), 0));
    if (std::find(s.streams.begin(), s.streams.end(), stream) == s.streams.end()) s.streams.push_back(stream);
}

void DeviceBuffers::reuse(Buffer buffer) {
    State& s = state(buffer, "reuse");
    for (cudaStream_t stream : s.streams) {
        SC_CUDA_CHECK(cudaEventRecord(m_scratch.get(), stream));
        SC_CUDA_CHECK(cudaStreamWaitEvent(m_compute, m_scratch.get(), 0));
    }
    SC_CUDA_CHECK(cudaEventRecord(s.computeDone.get(), m_compute));
}

std::uint64_t DeviceBuffers::usedHigh() const {
    std::uint64_t high = 0;
    SC_CUDA_CHECK(cudaMemPoolGetAttribute(m_pool, cudaMemPoolAttrUsedMemHigh, &high));
    return high;
}

void DeviceBuffers::touchedByCompute(Buffer buffer) {
    State& s = state(buffer, "compute");
    SC_CUDA_CHECK(cudaEventRecord(s.computeDone.get(), m_compute));
}

} // namespace stagecraft::runtime::cuda
