#pragma once

#include <cstddef>
#include <string>
#include <string_view>

namespace reach {

// The name people read for one GPU activity of a profile. Full (demangled) kernel names are
// kilobytes of templates; a display name keeps the part that tells kernels apart:
//
//   void at::native::vectorized_elementwise_kernel<4, at::native::BinaryFunctor<c10::BFloat16,
//       c10::BFloat16, c10::BFloat16, at::native::binary_internal::MulFunctor<float> >,
//       std::array<char*, 3ul> >(int, ...)          ->
//       vectorized_elementwise_kernel<MulFunctor<bf16>>
//   void vllm::rms_norm_kernel<c10::BFloat16>(...)  -> rms_norm_kernel<bf16>
//   std::enable_if<...>::type internal::gemvx::kernel<int, float, ...>(...) -> gemvx::kernel<f32>
//   void cutlass::Kernel2<cutlass_80_tensorop_..._64x64_64x6_tn_align8>(...)
//                                                   -> cutlass_80_tensorop_..._64x64_64x6_tn_align8
//
// That is: no return type, namespaces or parameter list; the function's own name; in angle
// brackets the operation it runs (the functor, the lambda's enclosing function, the op of a
// wrapper such as BinaryFunctor or gpu_kernel_impl) and the element type in short form (bf16,
// fp16, f32, f64, fp8e4m3, i64, ...; b16 for a 2-byte opaque type). Numbers and flags (launch
// bounds, vector widths, booleans), index types, pointer arguments and configuration types
// (traits, policies, metadata, params, offset calculators) are left out, so kernels that differ
// only in those read alike. Names without templates (nvjet/cuBLAS/cuDNN/CUTLASS 2 with their tile
// shapes, Triton, memcpy/memset activities) stay as they are. A mangled name ("_ZN...") is
// demangled first; one the demangler rejects is read from its source names.
//
// maxChars > 0 elides the middle of a longer result ("..."), keeping the head (the kernel) and
// the tail (the op, or a library kernel's tile shape and layout). Display only: aggregation,
// rules and JSON "name" always use the full name.
std::string kernelDisplayName(std::string_view fullName, size_t maxChars = 0);

// The function a demangled kernel name calls, as spelled in the name: `qualified` is its namespaces
// and name without return type, template arguments, parameter list or "(anonymous namespace)"
// ("void at::native::(anonymous namespace)::indexSelectSmallIndex<c10::BFloat16, long>(...)" ->
// "at::native::indexSelectSmallIndex"); `firstTemplateArg` the first of its template arguments
// (what a wrapper such as cutlass::device_kernel<...> runs). A mangled name is not demangled:
// callers that build patterns (rulesuggest's kernelStem) need text that occurs in the name.
struct KernelFunctionName {
    std::string qualified;
    std::string firstTemplateArg;
};
KernelFunctionName kernelFunctionName(std::string_view fullName);

// The short element-type name of one C++ scalar type as it appears in demangled names
// ("c10::BFloat16" -> "bf16", "float const" -> "f32", "unsigned long" -> "u64"); empty when the
// type is not a scalar (pointers, classes).
std::string shortTypeName(std::string_view type);

}  // namespace reach
