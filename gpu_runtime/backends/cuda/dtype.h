#pragma once
// The element type of the CUDA layer's buffers, GEMMs, transfers and all-reduces
// (LayerSetup::dtype). Pure C++ so that the tests check it without a GPU.

#include "exec/device_layer.h"

#include <cstddef>
#include <cstdint>
#include <string>

namespace stagecraft::runtime::cuda {

enum class DType : std::uint8_t { F32, F16, BF16 };

/// "fp32", "fp16" or "bf16" (any case); anything else is refused with the valid names.
inline DType parseDType(const std::string& name) {
    std::string lower;
    for (char c : name) lower += (c >= 'A' && c <= 'Z') ? char(c - 'A' + 'a') : c;
    if (lower == "fp32") return DType::F32;
    if (lower == "fp16") return DType::F16;
    if (lower == "bf16") return DType::BF16;
    throw BackendError("unknown dtype \"" + name + "\" for the CUDA layer: expected fp32, fp16 or bf16");
}

inline std::size_t dtypeBytes(DType type) {
    return type == DType::F32 ? 4 : 2;
}

inline const char* dtypeName(DType type) {
    switch (type) {
    case DType::F32:
        return "fp32";
    case DType::F16:
        return "fp16";
    case DType::BF16:
        return "bf16";
    }
    return "?";
}

} // namespace stagecraft::runtime::cuda
