#include "workloads/json_event_stream.h"

#include <cstdio>
#include <iterator>
#include <memory>
#include <vector>

#include <fmt/format.h>

#include "sim/base/input_file.h"

namespace c3sim::wl {

namespace {

using nlohmann::json;

// Bytes from memory or a file, with the line and column of the next byte and a byte cap: past the
// cap it reports the end (the parser then stops with a syntax error, which the handler replaces by
// the cap's message).
class CountingSource {
public:
  CountingSource(const char* data, std::size_t size, std::uintmax_t max_bytes)
      : pos_(data), end_(data), max_bytes_(max_bytes) {
    end_ = data + size;
  }
  CountingSource(std::FILE* file, std::uintmax_t max_bytes)
      : file_(file), buffer_(std::size_t{1} << 20), max_bytes_(max_bytes) {}

  int peek() {
    if (pos_ == end_ && !refill()) return -1;
    if (bytes_ >= max_bytes_) {
      over_limit_ = true;
      return -1;
    }
    return static_cast<unsigned char>(*pos_);
  }
  void advance() {
    last_line_ = line_;
    last_column_ = column_;
    if (*pos_ == '\n') {
      ++line_;
      column_ = 1;
    } else {
      ++column_;
    }
    ++pos_;
    ++bytes_;
  }
  [[nodiscard]] int line() const { return line_; }
  // Where the last byte read was: the parser has just read the byte it complains about.
  [[nodiscard]] int last_line() const { return last_line_; }
  [[nodiscard]] int last_column() const { return last_column_; }
  [[nodiscard]] bool over_limit() const { return over_limit_; }
  [[nodiscard]] bool read_failed() const { return file_ != nullptr && std::ferror(file_) != 0; }

private:
  bool refill() {
    if (file_ == nullptr) return false;
    const std::size_t n = std::fread(buffer_.data(), 1, buffer_.size(), file_);
    pos_ = buffer_.data();
    end_ = pos_ + n;
    return n > 0;
  }

  std::FILE* file_ = nullptr;
  std::vector<char> buffer_;
  const char* pos_ = nullptr;
  const char* end_ = nullptr;
  std::uintmax_t max_bytes_;
  std::uintmax_t bytes_ = 0;
  int line_ = 1, column_ = 1;
  int last_line_ = 1, last_column_ = 0;
  bool over_limit_ = false;
};

// The input iterator nlohmann's parser reads through (one byte ahead at most), so the source's
// line is where the parser is.
class SourceIterator {
public:
  using iterator_category = std::input_iterator_tag;
  using value_type = char;
  using difference_type = std::ptrdiff_t;
  using pointer = const char*;
  using reference = char;

  SourceIterator() = default;  // the end
  explicit SourceIterator(CountingSource* source) : source_(source) {}
  char operator*() const { return static_cast<char>(source_->peek()); }
  SourceIterator& operator++() {
    source_->advance();
    return *this;
  }
  SourceIterator operator++(int) {
    SourceIterator before = *this;
    source_->advance();
    return before;
  }
  friend bool operator==(const SourceIterator& a, const SourceIterator& b) { return a.done() == b.done(); }

private:
  [[nodiscard]] bool done() const { return source_ == nullptr || source_->peek() < 0; }
  CountingSource* source_ = nullptr;
};

// SAX handler: no tree for the document or the events array; a tree for each top-level member
// and each event, handed over when complete.
class Handler {
public:
  using number_integer_t = json::number_integer_t;
  using number_unsigned_t = json::number_unsigned_t;
  using number_float_t = json::number_float_t;
  using string_t = json::string_t;
  using binary_t = json::binary_t;

  Handler(const std::string& file, const std::string& events_key, const JsonStreamLimits& limits,
          const JsonStreamCallbacks& callbacks, const CountingSource& source)
      : file_(file), events_key_(events_key), limits_(limits), callbacks_(callbacks), source_(source) {}

  bool null() { return value(json(nullptr)); }
  bool boolean(bool b) { return value(json(b)); }
  bool number_integer(number_integer_t v) { return value(json(v)); }
  bool number_unsigned(number_unsigned_t v) { return value(json(v)); }
  bool number_float(number_float_t v, const string_t& /*text*/) { return value(json(v)); }
  bool string(string_t& s) { return value(json(std::move(s))); }
  bool binary(binary_t& /*b*/) { return value(json(nullptr)); }  // JSON text has no binary values

  bool start_object(std::size_t /*elements*/) {
    if (depth_ == 0) {  // the document's own object: no tree
      depth_ = 1;
      summary_.object = true;
      return true;
    }
    return open(json::object());
  }
  bool key(string_t& k) {
    if (stack_.empty()) {
      member_key_ = k;
    } else {
      member_ = &(*stack_.back())[k];
    }
    return true;
  }
  bool end_object() {
    if (stack_.empty()) {  // the document's own object
      depth_ = 0;
      return true;
    }
    return close();
  }
  bool start_array(std::size_t /*elements*/) {
    if (depth_ == 0) return stop_not_object();
    if (depth_ == 1 && stack_.empty() && member_key_ == events_key_) {
      depth_ = 2;
      in_events_ = true;
      summary_.had_events = true;
      return true;
    }
    return open(json::array());
  }
  bool end_array() {
    if (in_events_ && stack_.empty()) {
      depth_ = 1;
      in_events_ = false;
      return true;
    }
    return close();
  }
  bool parse_error(std::size_t /*position*/, const std::string& /*last_token*/,
                   const nlohmann::detail::exception& ex) {
    if (source_.over_limit()) {
      fail("", fmt::format("the file is over the {} MiB limit for this input (read it in parts, or "
                           "profile fewer steps)",
                           limits_.max_bytes >> 20));
    } else {
      // nlohmann's text is "[json.exception.parse_error.101] parse error at line L, column C: what"
      // (or "[json.exception.out_of_range.406] number overflow parsing '1e999'"); the location
      // goes into the error's own fields.
      std::string what = ex.what();
      if (const std::size_t at = what.find("] "); at != std::string::npos) what = what.substr(at + 2);
      if (what.rfind("parse error", 0) == 0) {
        if (const std::size_t at = what.find(": "); at != std::string::npos) what = what.substr(at + 2);
      }
      fail("", "not valid JSON: " + what);
    }
    return false;
  }

  [[nodiscard]] const JsonStreamSummary& summary() const { return summary_; }
  // The error that stopped the parse, if any (thrown by the caller after sax_parse returns).
  [[nodiscard]] const std::unique_ptr<InputError>& error() const { return error_; }
  [[nodiscard]] bool stopped_not_object() const { return not_object_; }

private:
  void fail(const std::string& key, const std::string& problem) {
    if (!error_) {
      error_ = std::make_unique<InputError>(SourceLocation{file_, source_.last_line(), source_.last_column()},
                                            key, problem);
    }
  }
  bool stop_not_object() {
    not_object_ = true;
    return false;
  }

  // A value in a member's or an event's tree, or a whole scalar member or event.
  bool value(json v) {
    if (depth_ == 0) return stop_not_object();
    if (stack_.empty()) {
      root_ = std::move(v);
      root_line_ = source_.last_line();
      return deliver();
    }
    place(std::move(v));
    return true;
  }
  json* place(json v) {
    json* parent = stack_.back();
    if (parent->is_array()) {
      parent->push_back(std::move(v));
      return &parent->back();
    }
    *member_ = std::move(v);
    return member_;
  }
  bool open(json container) {
    if (depth_ + 1 > limits_.max_depth) {
      fail("", fmt::format("nesting deeper than {} levels of objects and arrays (a profiler trace nests 6)",
                           limits_.max_depth));
      return false;
    }
    ++depth_;
    if (stack_.empty()) {
      root_ = std::move(container);
      root_line_ = source_.last_line();
      stack_.push_back(&root_);
    } else {
      stack_.push_back(place(std::move(container)));
    }
    return true;
  }
  bool close() {
    --depth_;
    stack_.pop_back();
    return stack_.empty() ? deliver() : true;
  }
  bool deliver() {
    if (in_events_) {
      if (summary_.events >= limits_.max_events) {
        fail(events_key_, fmt::format("more than {} events: over the limit for one import (profile "
                                      "fewer steps, or one step with schedule(active=1))",
                                      limits_.max_events));
        return false;
      }
      if (callbacks_.event) callbacks_.event(summary_.events, root_line_, root_);
      ++summary_.events;
    } else if (callbacks_.member) {
      callbacks_.member(member_key_, root_);
    }
    root_ = json();
    return true;
  }

  const std::string& file_;
  const std::string& events_key_;
  const JsonStreamLimits& limits_;
  const JsonStreamCallbacks& callbacks_;
  const CountingSource& source_;
  JsonStreamSummary summary_;
  int depth_ = 0;
  bool in_events_ = false;
  bool not_object_ = false;
  std::string member_key_;
  json root_;
  int root_line_ = 0;
  std::vector<json*> stack_;
  json* member_ = nullptr;
  std::unique_ptr<InputError> error_;
};

JsonStreamSummary read(CountingSource& source, const std::string& file, const std::string& events_key,
                       const JsonStreamLimits& limits, const JsonStreamCallbacks& callbacks) {
  Handler handler(file, events_key, limits, callbacks, source);
  const bool ok = json::sax_parse(SourceIterator(&source), SourceIterator(), &handler);
  if (source.read_failed()) throw InputError(SourceLocation{file, 0, 0}, "", "read error");
  if (handler.error()) throw InputError(*handler.error());
  if (!ok && !handler.stopped_not_object()) {
    throw InputError(SourceLocation{file, source.last_line(), source.last_column()}, "", "not valid JSON");
  }
  return handler.summary();
}

}  // namespace

JsonStreamSummary read_json_event_stream_file(const std::string& path, const std::string& events_key,
                                              const JsonStreamLimits& limits,
                                              const JsonStreamCallbacks& callbacks) {
  check_input_file(path, "", limits.max_bytes);
  const std::unique_ptr<std::FILE, int (*)(std::FILE*)> file(std::fopen(path.c_str(), "rb"), &std::fclose);
  if (!file) throw InputError(SourceLocation{path, 0, 0}, "", "cannot open file (missing or unreadable)");
  CountingSource source(file.get(), limits.max_bytes);
  return read(source, path, events_key, limits, callbacks);
}

JsonStreamSummary read_json_event_stream_string(const std::string& text, const std::string& file,
                                                const std::string& events_key, const JsonStreamLimits& limits,
                                                const JsonStreamCallbacks& callbacks) {
  CountingSource source(text.data(), text.size(), limits.max_bytes);
  return read(source, file, events_key, limits, callbacks);
}

}  // namespace c3sim::wl
