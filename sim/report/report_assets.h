#pragma once
// The page's bundled assets, embedded at build time (embed_assets.cmake): Chart.js (vendored in
// web/vendor at the version web/package.json pins), and the report's own script and style sheet.
#include <string>

namespace c3sim::report {

const std::string& chart_js();
const std::string& report_js();
const std::string& report_css();

}  // namespace c3sim::report
