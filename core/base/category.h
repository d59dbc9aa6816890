#pragma once

#include <array>
#include <optional>
#include <string_view>

namespace reach {

// The four fixed categories of GPU time (DOMAIN.md). Every kernel, memcpy and memset falls in
// exactly one. The order is the display order everywhere (bars, tables, JSON).
enum class Category { LibraryOptimized = 0, Addressable = 1, Overhead = 2, Unclassified = 3 };

inline constexpr std::array<Category, 4> kCategories = {
    Category::LibraryOptimized, Category::Addressable, Category::Overhead, Category::Unclassified};

// snake_case key used in JSON, SQLite and rule files: "library_optimized", ...
std::string_view categoryKey(Category c);
// Human label: "library-optimized", "addressable", "overhead", "unclassified".
std::string_view categoryLabel(Category c);
// Accepts the key or the label; nullopt when neither.
std::optional<Category> categoryFromString(std::string_view s);

}  // namespace reach
