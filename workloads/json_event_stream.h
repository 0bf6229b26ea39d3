#pragma once
// Streaming, bounded reading of a Chrome-trace-style JSON document: one top-level object whose
// member `events_key` is an array of events. Each event is built on its own as a small
// nlohmann::json, handed to a callback with its index and line, and dropped, so memory holds one
// event at a time rather than the whole document twice (text and tree). The other top-level
// members are handed over whole (they are small in every real trace: distributedInfo,
// deviceProperties, ...).
//
// Bounded: the byte count, the nesting depth (checked as each container opens, so a file of 10^5
// nested brackets is an InputError, not a deep tree that a recursive dump or copy would overflow
// the stack on) and the event count have limits, each named in its message. Errors carry the line
// and column the parser had reached; a syntax error keeps nlohmann's description of it.
#include <cstddef>
#include <cstdint>
#include <functional>
#include <string>

#include <nlohmann/json.hpp>

#include "sim/base/errors.h"

namespace c3sim::wl {

struct JsonStreamLimits {
  std::uintmax_t max_bytes = 0;
  int max_depth = 0;           // nesting of objects and arrays, the document's own object = 1
  std::size_t max_events = 0;  // elements of the events array
};

struct JsonStreamCallbacks {
  // A top-level member other than the events array, whole.
  std::function<void(const std::string& key, const nlohmann::json& value)> member;
  // One element of the events array: its index in the array and the line it starts on.
  std::function<void(std::size_t index, int line, const nlohmann::json& event)> event;
};

// What the reader found at the top level (a document that is not an object, or has no events
// array, is for the caller to judge: it knows what file kind it expected).
struct JsonStreamSummary {
  bool object = false;      // the document is a JSON object
  bool had_events = false;  // it has `events_key` as an array
  std::size_t events = 0;
};

// Reads `path` (missing, not a regular file, or over limits.max_bytes: InputError naming it).
JsonStreamSummary read_json_event_stream_file(const std::string& path, const std::string& events_key,
                                              const JsonStreamLimits& limits,
                                              const JsonStreamCallbacks& callbacks);
// The same over text in memory; `file` names it in errors.
JsonStreamSummary read_json_event_stream_string(const std::string& text, const std::string& file,
                                                const std::string& events_key, const JsonStreamLimits& limits,
                                                const JsonStreamCallbacks& callbacks);

}  // namespace c3sim::wl
