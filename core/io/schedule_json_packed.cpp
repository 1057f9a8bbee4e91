#include "io/schedule_json_packed.h"

#include <limits>

namespace stagecraft {

namespace {

using Json = nlohmann::json;

/// Builds the document of everything but the packed members, which it packs. Returns false (stops
/// the parse) at anything the packed reading does not cover.
class PackingSax : public Json::json_sax_t {
  public:
    explicit PackingSax(PackedScheduleJson& out) : m_out(out) {}

    bool null() override { return value(Json(nullptr)); }
    bool boolean(bool v) override { return value(Json(v)); }
    bool number_integer(number_integer_t v) override { return value(Json(v)); }
    bool number_unsigned(number_unsigned_t v) override { return value(Json(v)); }
    bool number_float(number_float_t v, const string_t&) override { return value(Json(v)); }
    bool binary(binary_t&) override { return false; }
    bool string(string_t& v) override {
        if (m_capture == Capture::Strings) return pack(v);
        if (m_capture != Capture::None) return false; // a string directly in "order"
        return value(Json(std::move(v)));
    }

    bool start_object(std::size_t) override {
        if (m_capture != Capture::None) return false;
        return open(Json::object());
    }
    bool end_object() override {
        m_stack.pop_back();
        m_keys.pop_back();
        return true;
    }
    bool start_array(std::size_t) override {
        if (m_capture == Capture::Devices) { // one device's list of "order"
            m_out.order->push_back(PackedStrings{std::uint32_t(m_out.chars.size()), {}});
            m_list = &m_out.order->back();
            m_capture = Capture::Strings;
            return true;
        }
        if (m_capture != Capture::None) return false;
        if (const auto target = packedMember()) {
            if (*target == Target::Order) {
                if (m_out.order) return false; // given twice
                m_out.order.emplace();
                m_capture = Capture::Devices;
            } else {
                auto& list = *target == Target::Overlapped ? m_out.overlapped : m_out.wholeBackward;
                if (list) return false;
                list.emplace(PackedStrings{std::uint32_t(m_out.chars.size()), {}});
                m_list = &*list;
                m_capture = Capture::Strings;
                m_headsList = true;
            }
            (*m_stack.back())[m_keys.back()] = nullptr; // the member is there, packed
            return true;
        }
        return open(Json::array());
    }
    bool end_array() override {
        if (m_capture == Capture::Strings) {
            m_capture = m_headsList ? Capture::None : Capture::Devices;
            m_headsList = false;
            return true;
        }
        if (m_capture == Capture::Devices) {
            m_capture = Capture::None;
            return true;
        }
        m_stack.pop_back();
        m_keys.pop_back();
        return true;
    }
    bool key(string_t& k) override {
        m_keys.back() = k;
        return true;
    }
    bool parse_error(std::size_t, const std::string&, const nlohmann::detail::exception&) override {
        return false;
    }

  private:
    enum class Capture { None, Devices, Strings };
    enum class Target { Order, Overlapped, WholeBackward };

    /// The packed member a value at the root object's current key would be.
    std::optional<Target> packedMember() const {
        if (m_stack.size() != 1 || !m_stack.back()->is_object()) return std::nullopt;
        const std::string& key = m_keys.back();
        if (key == "order") return Target::Order;
        if (key == "overlapped") return Target::Overlapped;
        if (key == "whole_backward") return Target::WholeBackward;
        return std::nullopt;
    }

    bool pack(const std::string& text) {
        if (m_out.chars.size() + text.size() > std::numeric_limits<std::uint32_t>::max()) return false;
        m_out.chars += text;
        m_list->ends.push_back(std::uint32_t(m_out.chars.size()));
        return true;
    }

    /// A scalar value where it belongs; a packed member given again as something else stops.
    bool value(Json v) {
        if (m_capture != Capture::None) return false;
        if (m_stack.empty()) {
            m_out.rest = std::move(v);
            return true;
        }
        if (packedMember() && packedTaken()) return false; // a packed member given again
        place(std::move(v));
        return true;
    }
    bool packedTaken() const {
        const std::string& key = m_keys.back();
        return (key == "order" && m_out.order) || (key == "overlapped" && m_out.overlapped) ||
               (key == "whole_backward" && m_out.wholeBackward);
    }
    Json& place(Json v) {
        if (m_stack.empty()) {
            m_out.rest = std::move(v);
            return m_out.rest;
        }
        Json& parent = *m_stack.back();
        if (parent.is_array()) {
            parent.push_back(std::move(v));
            return parent.back();
        }
        Json& slot = parent[m_keys.back()];
        slot = std::move(v);
        return slot;
    }
    bool open(Json container) {
        if (!m_stack.empty() && packedMember() && packedTaken()) return false;
        Json& placed = place(std::move(container));
        m_stack.push_back(&placed);
        m_keys.emplace_back();
        return true;
    }

    PackedScheduleJson& m_out;
    std::vector<Json*> m_stack;      ///< open containers, the innermost last
    std::vector<std::string> m_keys; ///< per open container, its current key (objects)
    Capture m_capture = Capture::None;
    PackedStrings* m_list = nullptr;
    bool m_headsList = false;
};

} // namespace

std::optional<PackedScheduleJson> readPackedScheduleJson(std::string_view text) {
    PackedScheduleJson out;
    PackingSax sax(out);
    try {
        if (!Json::sax_parse(text.begin(), text.end(), &sax)) return std::nullopt;
    } catch (const Json::exception&) {
        return std::nullopt;
    }
    return out;
}

} // namespace stagecraft
