#pragma once
// A decoder of protobuf's wire format for tests, written from the format's specification (varints
// and length-delimited fields; the exporters write no other wire types): the Perfetto and Chakra
// exports are read back with it, independent of their writers.

#include <catch2/catch.hpp>
#include <cstdint>
#include <string>
#include <vector>

namespace stagecraft::test {

/// One field of a protobuf message: a varint or a length-delimited payload.
struct Field {
    std::uint32_t number = 0;
    std::uint64_t varint = 0;
    std::string bytes;
};

inline std::vector<Field> decode(const std::string& message) {
    std::vector<Field> fields;
    std::size_t at = 0;
    auto varint = [&] {
        std::uint64_t value = 0;
        for (int shift = 0;; shift += 7) {
            REQUIRE(at < message.size());
            const auto byte = std::uint8_t(message[at++]);
            value |= std::uint64_t(byte & 0x7f) << shift;
            if (!(byte & 0x80)) return value;
        }
    };
    while (at < message.size()) {
        const std::uint64_t key = varint();
        Field f;
        f.number = std::uint32_t(key >> 3);
        const auto wire = std::uint32_t(key & 7);
        REQUIRE((wire == 0 || wire == 2));
        if (wire == 0) {
            f.varint = varint();
        } else {
            const std::uint64_t length = varint();
            REQUIRE(at + length <= message.size());
            f.bytes = message.substr(at, std::size_t(length));
            at += std::size_t(length);
        }
        fields.push_back(std::move(f));
    }
    return fields;
}

inline const Field* find(const std::vector<Field>& fields, std::uint32_t number) {
    for (const Field& f : fields)
        if (f.number == number) return &f;
    return nullptr;
}

/// The records of a length-prefixed stream (Chakra's files): each a varint size, then the message.
inline std::vector<std::string> records(const std::string& stream) {
    std::vector<std::string> out;
    std::size_t at = 0;
    while (at < stream.size()) {
        std::uint64_t size = 0;
        for (int shift = 0;; shift += 7) {
            REQUIRE(at < stream.size());
            const auto byte = std::uint8_t(stream[at++]);
            size |= std::uint64_t(byte & 0x7f) << shift;
            if (!(byte & 0x80)) break;
        }
        REQUIRE(at + size <= stream.size());
        out.push_back(stream.substr(at, std::size_t(size)));
        at += std::size_t(size);
    }
    return out;
}

/// Every field `number` of `fields`.
inline std::vector<const Field*> all(const std::vector<Field>& fields, std::uint32_t number) {
    std::vector<const Field*> out;
    for (const Field& f : fields)
        if (f.number == number) out.push_back(&f);
    return out;
}

} // namespace stagecraft::test
