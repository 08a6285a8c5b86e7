#include "store/postgres/search_path_uri.hpp"

#include <gtest/gtest.h>

namespace migronaut {
namespace {

TEST(SearchPathUriTest, MovesSearchPathIntoOptions) {
  EXPECT_EQ(with_search_path_in_options("postgres://u:p@h/db?search_path=myschema"),
            "postgres://u:p@h/db?options=-c%20search_path%3Dmyschema");
  EXPECT_EQ(with_search_path_in_options("postgres://h/db?sslmode=disable&search_path=a%2Cb&x=1"),
            "postgres://h/db?sslmode=disable&x=1&options=-c%20search_path%3Da%2Cb");
}

// The URI's own options come first, so the lock connection's bounds still extend them.
TEST(SearchPathUriTest, KeepsTheUrisOwnOptions) {
  EXPECT_EQ(
      with_search_path_in_options("postgres://h/db?search_path=s&options=-c%20work_mem%3D64MB"),
      "postgres://h/db?options=-c%20work_mem%3D64MB%20-c%20search_path%3Ds");
}

TEST(SearchPathUriTest, EscapesWhatOptionsWouldSplit) {
  EXPECT_EQ(with_search_path_in_options("postgres://h/db?search_path=my%20schema"),
            "postgres://h/db?options=-c%20search_path%3Dmy%5C%20schema");
}

// libpq reads a password up to its '@': a '?' in it starts no parameters.
TEST(SearchPathUriTest, AQuestionMarkInThePasswordIsNoQuery) {
  EXPECT_EQ(with_search_path_in_options("postgres://u:pa?ss@h/db?search_path=s"),
            "postgres://u:pa?ss@h/db?options=-c%20search_path%3Ds");
  EXPECT_EQ(with_search_path_in_options("postgres://u:a?search_path=b@h/db"),
            "postgres://u:a?search_path=b@h/db");
}

TEST(SearchPathUriTest, LeavesOtherUrisAlone) {
  for (const char* uri : {"postgres://h/db", "postgres://h/db?sslmode=require",
                          "postgres://h/db?options=-csearch_path%3Ds"}) {
    EXPECT_EQ(with_search_path_in_options(uri), uri);
  }
}

}  // namespace
}  // namespace migronaut
