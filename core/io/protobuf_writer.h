#pragma once
// Protobuf's wire format, written by hand for the exports that speak it (Perfetto's trace, Chakra's
// execution traces): varint and length-delimited fields are all they use, so no protobuf library
// (and no generated code) is needed. Field numbers live with each exporter, from the format's
// published .proto.

#include <cstdint>
#include <string>
#include <string_view>

namespace stagecraft {

class ProtobufMessage {
  public:
    /// A varint field (integers, enums, bools).
    void varint(std::uint32_t field, std::uint64_t value) {
        key(field, 0);
        raw(value);
    }
    /// A length-delimited field (strings, bytes).
    void bytes(std::uint32_t field, std::string_view value) {
        key(field, 2);
        raw(value.size());
        m_out.append(value);
    }
    void message(std::uint32_t field, const ProtobufMessage& inner) { bytes(field, inner.m_out); }
    /// `message` as one record of a size-prefixed stream (a Chakra file): its size, then its bytes.
    void record(const ProtobufMessage& message) {
        raw(message.m_out.size());
        m_out.append(message.m_out);
    }
    const std::string& data() const { return m_out; }

  private:
    void key(std::uint32_t field, std::uint32_t wireType) { raw((std::uint64_t(field) << 3) | wireType); }
    void raw(std::uint64_t value) {
        while (value >= 0x80) {
            m_out.push_back(char(value | 0x80));
            value >>= 7;
        }
        m_out.push_back(char(value));
    }
    std::string m_out;
};

} // namespace stagecraft
