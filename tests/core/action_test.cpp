#include "ir/action.h"

#include <catch2/catch.hpp>

using namespace stagecraft;

TEST_CASE("Action strings print and parse as exact inverses", "[action]") {
    for (int pipe : {0, 1})
        for (int stage : {0, 3, 17})
            for (ActionType type : {ActionType::F, ActionType::I, ActionType::B, ActionType::W})
                for (int mb : {0, 9, 1234}) {
                    const Action a{pipe, stage, type, mb};
                    const std::string text = formatAction(a);
                    INFO(text);
                    const auto back = parseAction(text);
                    REQUIRE(back);
                    CHECK(*back == a);
                }
    CHECK(formatAction({0, 2, ActionType::I, 0}) == "2I0");
    CHECK(formatAction({1, 3, ActionType::B, 2}) == "p1:3B2");
}

TEST_CASE("Compute ops map to torch's action types", "[action]") {
    const Op b{OpKind::B, 0, 0, 2, 5};
    CHECK(actionString(b, true) == "2I5");
    CHECK(actionString(b, false) == "2B5");
    CHECK(actionString({OpKind::W, 0, 0, 1, 3}, true) == "1W3");
    CHECK(opKindOf(ActionType::I) == OpKind::B);
    CHECK_THROWS_AS(actionOf({OpKind::GradSync, 0, 0, 1, -1}, false), std::logic_error);
}

TEST_CASE("Malformed action strings are refused with the reason", "[action]") {
    std::string why;
    CHECK(parseAction(" 0F1 ")); // torch strips blanks of hand-edited cells
    CHECK_FALSE(parseAction("0F1x", &why));
    CHECK_THAT(why, Catch::Contains("unexpected 'x'"));
    CHECK_FALSE(parseAction("0X1", &why));
    CHECK_THAT(why, Catch::Contains("not a compute action type"));
    CHECK_FALSE(parseAction("F1", &why));
    CHECK_THAT(why, Catch::Contains("starts with its stage number"));
    CHECK_FALSE(parseAction("0F", &why));
    CHECK_THAT(why, Catch::Contains("micro-batch number"));
    CHECK_FALSE(parseAction("", &why));
    CHECK_FALSE(parseAction("99999999999F0", &why));
    CHECK_FALSE(parseAction("p:0F0", &why));
    CHECK_THAT(why, Catch::Contains("pipe prefix"));
    CHECK_FALSE(parseAction("0SEND_F1", &why));
}
