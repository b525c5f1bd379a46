// doctest's implementation and main. The header is already in (tests/doctest_strings.h comes
// first in every test file), so IMPLEMENT is named as well as IMPLEMENT_WITH_MAIN, which implies
// it only on the header's first inclusion.
#define DOCTEST_CONFIG_IMPLEMENT_WITH_MAIN
#define DOCTEST_CONFIG_IMPLEMENT
#include <doctest/doctest.h>
