#pragma once
// Quantities in words for messages: "40,000,000", "11.18 GiB".

#include <cstddef>
#include <string>

namespace stagecraft {

/// Digits grouped by thousands with commas: 40000000 -> "40,000,000".
std::string groupedInteger(std::size_t value);

/// Bytes in GiB with two decimals: "11.18 GiB".
std::string gibText(double bytes);

} // namespace stagecraft
