#pragma once
// Reads tests/data/golden/<name>.txt: '#' comment lines, then "D<r>: <ops>" rows.

#include <fstream>
#include <map>
#include <stdexcept>
#include <string>

namespace stagecraft::testing {

inline std::map<int, std::string> readGoldenRows(const std::string& name) {
    const std::string path = std::string(STAGECRAFT_SOURCE_DIR) + "/tests/data/golden/" + name + ".txt";
    std::ifstream in(path);
    if (!in) throw std::runtime_error("cannot open golden file " + path);
    std::map<int, std::string> rows;
    for (std::string line; std::getline(in, line);) {
        if (line.empty() || line[0] == '#') continue;
        const auto colon = line.find(": ");
        if (line[0] != 'D' || colon == std::string::npos)
            throw std::runtime_error("bad golden line: " + line);
        rows[std::stoi(line.substr(1, colon - 1))] = line.substr(colon + 2);
    }
    return rows;
}

} // namespace stagecraft::testing
