#include "io/trace_counters.h"

#include "error.h"
#include "io/json_stream.h"

#include <algorithm>
#include <iterator>
#include <map>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>

namespace stagecraft {
namespace {

using json = nlohmann::json;

/// Keeps the "C" events of the trace's event list and nothing else. Containers are tracked by
/// depth only: the event list is the root array, or the root object's "traceEvents" array.
class CounterSax : public json::json_sax_t {
  public:
    std::vector<CounterTrack> tracks;

    bool null() override { return scalar(std::nullopt, nullptr); }
    bool boolean(bool) override { return scalar(std::nullopt, nullptr); }
    bool number_integer(number_integer_t v) override { return scalar(double(v), nullptr); }
    bool number_unsigned(number_unsigned_t v) override { return scalar(double(v), nullptr); }
    bool number_float(number_float_t v, const string_t&) override { return scalar(double(v), nullptr); }
    bool string(string_t& v) override { return scalar(std::nullopt, &v); }
    bool binary(binary_t&) override { return scalar(std::nullopt, nullptr); }

    bool start_object(std::size_t) override {
        ++m_depth;
        if (m_depth == 1) m_rootIsObject = true;
        if (isEventDepth()) m_event = Event{};
        // "args" opens one level below its event.
        if (m_argsNext && m_eventDepth > 0 && m_depth == m_eventDepth + 1) m_inArgs = true;
        m_argsNext = false;
        return true;
    }
    bool end_object() override {
        if (isEventDepth()) finishEvent();
        if (m_depth == m_eventDepth + 1) m_inArgs = false;
        --m_depth;
        return true;
    }
    bool start_array(std::size_t) override {
        ++m_depth;
        if (m_depth == 1)
            m_eventDepth = 2; // bare array: its elements are the events
        else if (m_depth == 2 && m_rootIsObject && m_key == "traceEvents")
            m_eventDepth = 3;
        return true;
    }
    bool end_array() override {
        if (m_depth == m_eventDepth - 1) m_eventDepth = -1;
        --m_depth;
        return true;
    }
    bool key(string_t& k) override {
        if (m_depth == 1) m_key = k;
        if (isEventDepth()) {
            m_field = k;
            m_argsNext = k == "args";
        } else if (m_eventDepth > 0 && m_depth == m_eventDepth + 1 && m_inArgs) {
            m_field = k;
        }
        return true;
    }
    bool parse_error(std::size_t position, const std::string&, const json::exception& e) override {
        errorByte = position;
        error = e.what();
        return false;
    }
    std::size_t errorByte = 0;
    std::string error;

  private:
    struct Event {
        std::string ph, name;
        std::optional<double> pid, ts, value;
    };

    bool isEventDepth() const { return m_eventDepth > 0 && m_depth == m_eventDepth; }

    bool scalar(std::optional<double> number, const std::string* text) {
        if (isEventDepth()) {
            m_argsNext = false;
            if (m_field == "ph" && text)
                m_event.ph = *text;
            else if (m_field == "name" && text)
                m_event.name = *text;
            else if (m_field == "pid" && number)
                m_event.pid = number;
            else if (m_field == "ts" && number)
                m_event.ts = number;
        } else if (m_inArgs && m_depth == m_eventDepth + 1 && number && !m_event.value) {
            m_event.value = number;
        }
        return true;
    }

    void finishEvent() {
        if (m_event.ph != "C" || !m_event.pid || !m_event.ts || !m_event.value) return;
        if (*m_event.pid < 0 || *m_event.pid > 1e6) return;
        const auto key = std::make_pair(int(*m_event.pid), m_event.name);
        auto [it, added] = m_index.try_emplace(key, tracks.size());
        if (added) tracks.push_back(CounterTrack{key.first, key.second, {}});
        tracks[it->second].points.emplace_back(*m_event.ts, *m_event.value);
    }

    int m_depth = 0;
    int m_eventDepth = -1;
    bool m_rootIsObject = false;
    bool m_argsNext = false, m_inArgs = false;
    std::string m_key, m_field;
    Event m_event;
    std::map<std::pair<int, std::string>, std::size_t> m_index;
};

/// An input iterator over a ByteSource: nlohmann's SAX parser reads a file through it block by
/// block, so reading the counters of a trace of any size holds one block and the counters.
class ByteIterator {
  public:
    using iterator_category = std::input_iterator_tag;
    using value_type = char;
    using difference_type = std::ptrdiff_t;
    using pointer = const char*;
    using reference = char;

    ByteIterator() = default;
    explicit ByteIterator(ByteSource& source) : m_source(&source) {}
    char operator*() const { return char(m_source->peek()); }
    ByteIterator& operator++() {
        m_source->advance();
        return *this;
    }
    ByteIterator operator++(int) {
        ByteIterator before = *this;
        ++*this;
        return before;
    }
    bool operator==(const ByteIterator& other) const { return atEnd() == other.atEnd(); }
    bool operator!=(const ByteIterator& other) const { return !(*this == other); }

  private:
    bool atEnd() const { return !m_source || m_source->peek() < 0; }
    ByteSource* m_source = nullptr;
};

/// The counters of the text `open` gives; on bad JSON, a second source from `open` locates the
/// byte the parser stopped at by line and column, as the timeline reader reports them.
template <typename Open>
std::vector<CounterTrack> readCounters(Open&& open, const std::string& name) {
    CounterSax sax;
    {
        std::unique_ptr<ByteSource> source = open();
        if (json::sax_parse(ByteIterator(*source), ByteIterator(), &sax)) return std::move(sax.tracks);
    }
    std::unique_ptr<ByteSource> again = open();
    int line = 1, column = 1;
    for (std::uint64_t i = 0; i + 1 < sax.errorByte; ++i) {
        const int c = again->peek();
        if (c < 0) break;
        again->advance();
        if (c == '\n')
            ++line, column = 1;
        else
            ++column;
    }
    throw ParseError("trace.json", name, line, column, "the trace is not valid JSON: " + sax.error);
}

} // namespace

std::vector<CounterTrack> parseTraceCounters(std::string_view text, const std::string& source) {
    return readCounters([&] { return std::make_unique<ByteSource>(text); }, source);
}

std::vector<CounterTrack> readTraceCounters(const std::filesystem::path& path) {
    return readCounters([&] { return std::make_unique<ByteSource>(path); }, path.string());
}

} // namespace stagecraft
