#pragma once

#include <string>

namespace reach {

// Where Reach keeps what it compiled (candidate objects, load_inline and Triton builds): a
// private directory of the user's, never a shared one. $REACH_CACHE_DIR/<what>, else
// $XDG_CACHE_HOME/reach/<what>, else ~/.cache/reach/<what> (the home directory from the password
// database when $HOME is unset), created with mode 0700. Throws InputError when the directory
// exists but belongs to another user or can be written by others: a cache that someone else can
// write is a way to make Reach load their code.
std::string defaultCacheDir(const std::string& what);

// The folder defaultCacheDir's folders live in ($REACH_CACHE_DIR, ...), checked the same way.
std::string cacheRoot();
// The same folder's path, neither created nor checked ("" without a home directory): to tell
// whether another private file would lie inside it.
std::string cacheRootPath();

// Checks an existing or new directory the same way (owner, no group/other write), creating it
// 0700 when missing; throws InputError naming it otherwise. `what` names it in the error and
// `variable` is the environment variable that chooses another.
void requirePrivateDir(const std::string& dir, const std::string& what = "cache directory",
                       const std::string& variable = "REACH_CACHE_DIR");

// The user's home directory: $HOME, else the password database's; "" when neither says.
std::string homeDirectory();

}  // namespace reach
