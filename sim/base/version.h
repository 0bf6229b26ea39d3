#pragma once
// The release version of c3sim (semantic versioning), read by CMake from the top-level VERSION
// file, the one place it is written; the Python package and the CMake package config read the
// same file. Defined in a generated source so that a new version rebuilds one file.
namespace c3sim {

// "MAJOR.MINOR.PATCH", e.g. "0.1.0".
[[nodiscard]] const char* version() noexcept;

}  // namespace c3sim
