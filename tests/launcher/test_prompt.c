/* The prompts' number rules: whole numbers in range, nothing else. */
#include "config.h"

#include "launcher/prompt.h"
#include "tests/tap.h"

int main(void)
{
    plan(30);
    uint32_t v = 0;
    ok(prompt_parse_number("1", BUCKET_MIN, BUCKET_MAX, &v) && v == 1, "1 is a bucket size");
    ok(prompt_parse_number("65535", BUCKET_MIN, BUCKET_MAX, &v) && v == 65535, "65535 is the top");
    ok(prompt_parse_number("  42  ", BUCKET_MIN, BUCKET_MAX, &v) && v == 42, "blanks around");
    ok(prompt_parse_number("42\n", BUCKET_MIN, BUCKET_MAX, &v) && v == 42, "a newline at the end");
    const char *bad[] = {"",      " ",   "0",    "-1",  "+1",    "abc",
                         "12abc", "1 2", "0x10", "1.5", "65536", "99999999999999999999999",
                         "-0"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
        ok(!prompt_parse_number(bad[i], BUCKET_MIN, BUCKET_MAX, &v), "'%s' is not a bucket size",
           bad[i]);
    ok(prompt_parse_number("60", INTERVAL_MIN, INTERVAL_MAX, &v) && v == 60, "60 us is allowed");
    ok(!prompt_parse_number("59", INTERVAL_MIN, INTERVAL_MAX, &v), "59 us is not");
    ok(prompt_parse_number("1000000", INTERVAL_MIN, INTERVAL_MAX, &v) && v == 1000000,
       "one second is allowed");
    ok(!prompt_parse_number("1000001", INTERVAL_MIN, INTERVAL_MAX, &v), "more is not");
    /* Why an answer is refused, as a pipe's wrong answers are told. */
    const struct {
        const char *answer, *why;
    } why[] = {{"", "an empty answer"},       {"  ", "an empty answer"},
               {"abc", "not a whole number"}, {"-1", "not a whole number"},
               {"1 2", "not a whole number"}, {"0", "too small"},
               {"65536", "too large"},        {"99999999999999999999999", "too large"}};
    for (size_t i = 0; i < sizeof why / sizeof why[0]; i++)
        is_str(prompt_number_why(why[i].answer, BUCKET_MIN, BUCKET_MAX, &v), why[i].why,
               "'%s' is refused as %s", why[i].answer, why[i].why);
    ok(prompt_number_why("7", BUCKET_MIN, BUCKET_MAX, &v) == NULL && v == 7, "7 is not refused");
    return tap_done();
}
