// Placeholder: tests are added by a later commit.
#include "gtest/gtest.h"
