#pragma once
// Text placed into the report pages' HTML: escaped for element content and attribute values, and
// JSON made safe inside a <script> element.
#include <string>

#include <nlohmann/json.hpp>

namespace c3sim::report {

// &, <, > and " as entities.
std::string html_escape(const std::string& s);

// JSON inside <script>: "</" would end the element early; "<\/" is the same JSON string.
std::string script_safe(std::string text);

// The page data's "sources" (the input files), escaped and joined with ", "; empty without any.
std::string html_source_list(const nlohmann::json& data);

}  // namespace c3sim::report
