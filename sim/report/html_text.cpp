#include "sim/report/html_text.h"

namespace c3sim::report {

std::string script_safe(std::string text) {
  for (size_t at = text.find("</"); at != std::string::npos; at = text.find("</", at + 3))
    text.replace(at, 2, "<\\/");
  return text;
}

std::string html_escape(const std::string& s) {
  std::string out;
  for (char c : s) {
    switch (c) {
      case '&': out += "&amp;"; break;
      case '<': out += "&lt;"; break;
      case '>': out += "&gt;"; break;
      case '"': out += "&quot;"; break;
      default: out += c;
    }
  }
  return out;
}

std::string html_source_list(const nlohmann::json& data) {
  std::string sources;
  for (const auto& f : data.value("sources", nlohmann::json::array()))
    sources += (sources.empty() ? "" : ", ") + html_escape(f.get<std::string>());
  return sources;
}

}  // namespace c3sim::report
