#pragma once
// Finding the CUDA devices and saying why there are none: no driver (cudaGetDeviceCount fails
// with cudaErrorInsufficientDriver when libcuda.so.1 is absent), the toolkit's stub driver on the
// library path, no visible device. The count is left untouched when the call fails, so it starts
// at 0 and only a successful call with a positive count means "GPU".

#include <string>

namespace stagecraft::runtime::cuda {

/// The number of usable devices; when 0, `why` says why. When positive, `why` lists them.
int usableDevices(std::string& why);

} // namespace stagecraft::runtime::cuda
