// Included ahead of every test file (tests/CMakeLists.txt, rf_doctest): doctest prints a
// const char* as its address, and the tests' messages name extensions, formats, kernels and
// algorithms by to_string's text.
#pragma once

#include <doctest/doctest.h>

namespace doctest {

template <>
struct StringMaker<const char*> {
  static String convert(const char* text) { return text ? String(text) : String("NULL"); }
};
template <>
struct StringMaker<char*> {
  static String convert(const char* text) { return StringMaker<const char*>::convert(text); }
};

}  // namespace doctest
