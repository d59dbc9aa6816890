#include "core/base/category.h"

namespace reach {

std::string_view categoryKey(Category c) {
    switch (c) {
        case Category::LibraryOptimized:
            return "library_optimized";
        case Category::Addressable:
            return "addressable";
        case Category::Overhead:
            return "overhead";
        case Category::Unclassified:
            return "unclassified";
    }
    return "unclassified";
}

std::string_view categoryLabel(Category c) {
    switch (c) {
        case Category::LibraryOptimized:
            return "library-optimized";
        case Category::Addressable:
            return "addressable";
        case Category::Overhead:
            return "overhead";
        case Category::Unclassified:
            return "unclassified";
    }
    return "unclassified";
}

std::optional<Category> categoryFromString(std::string_view s) {
    for (Category c : kCategories) {
        if (s == categoryKey(c) || s == categoryLabel(c))
            return c;
    }
    return std::nullopt;
}

}  // namespace reach
