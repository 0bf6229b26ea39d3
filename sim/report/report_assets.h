#pragma once
// The page's bundled assets, embedded at build time (embed_assets.cmake): Chart.js (vendored in
// web/vendor at the version web/package.json pins), the report's own script and style sheet, and the
// validation page's timeline script.
#include <string>

namespace c3sim::report {

const std::string& chart_js();
const std::string& report_js();
const std::string& report_css();
const std::string& validation_js();

}  // namespace c3sim::report
