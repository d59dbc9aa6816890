#pragma once

#include <functional>
#include <stop_token>

namespace reach {

// Long-running core functions take a progress callback and a std::stop_token. The callback gets
// a fraction in [0,1]; callers throttle what they show. Cancellation is cooperative: the loops
// check the token and throw Cancelled, leaving every input untouched.
using ProgressFn = std::function<void(double fraction)>;

struct Cancelled {};

}  // namespace reach
