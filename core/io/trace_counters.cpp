#include "io/trace_counters.h"

#include "error.h"
#include "file_io.h"

#include <algorithm>
#include <map>
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

} // namespace

std::vector<CounterTrack> parseTraceCounters(std::string_view text, const std::string& source) {
    CounterSax sax;
    const bool ok = json::sax_parse(text.begin(), text.end(), &sax);
    if (!ok) {
        // Line and column of the byte the parser stopped at, as the timeline reader reports them.
        const std::size_t end = std::min(sax.errorByte, text.size());
        int line = 1, column = 1;
        for (std::size_t i = 0; i + 1 < end; ++i) {
            if (text[i] == '\n')
                ++line, column = 1;
            else
                ++column;
        }
        throw ParseError("trace.json", source, line, column, "the trace is not valid JSON: " + sax.error);
    }
    return std::move(sax.tracks);
}

std::vector<CounterTrack> readTraceCounters(const std::filesystem::path& path) {
    return parseTraceCounters(readTextFile(path), path.string());
}

} // namespace stagecraft
