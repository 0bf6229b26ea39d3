#pragma once
// Text placed into the report pages' HTML: escaped for element content and attribute values, and
// JSON made safe inside a <script> element.
#include <string>

namespace c3sim::report {

// &, <, > and " as entities.
std::string html_escape(const std::string& s);

// JSON inside <script>: "</" would end the element early; "<\/" is the same JSON string.
std::string script_safe(std::string text);

}  // namespace c3sim::report
