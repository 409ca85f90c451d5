#pragma once

#include <cstdint>
#include <string>
#include <string_view>

namespace psbench::data::layout {

/// The training split's group name.
inline constexpr std::string_view kTrain = "train";
/// The test split's group name.
inline constexpr std::string_view kTest = "test";
/// Root attribute: number of classes (int32 scalar).
inline constexpr const char* kNumClasses = "num_classes";
/// Root attribute: one UTF-8 name per class.
inline constexpr const char* kClassNames = "class_names";
/// Root attribute: where the data came from (UTF-8 string).
inline constexpr const char* kSource = "source";
/// Root attribute: sample shape C, H, W (int32[3]).
inline constexpr const char* kShape = "shape";
/// Root attribute: per-channel mean of the training pixels scaled to [0, 1] (float64[C]).
inline constexpr const char* kMean = "mean";
/// Root attribute: per-channel standard deviation of the training pixels scaled to [0, 1] (float64[C]).
inline constexpr const char* kStd = "std";
/// Pixel values are divided by this before the mean and standard deviation apply.
inline constexpr double kPixelScale = 255.0;
/// Default bytes per chunk of the images dataset (whole samples per chunk).
inline constexpr std::uint64_t kDefaultChunkBytes = std::uint64_t{1} << 20;

/// "/<split>/images": N x C x H x W, uint8 or float32.
inline std::string images_path(std::string_view split) { return "/" + std::string(split) + "/images"; }
/// "/<split>/labels": N integer class indices.
inline std::string labels_path(std::string_view split) { return "/" + std::string(split) + "/labels"; }

}  // namespace psbench::data::layout
