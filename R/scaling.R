# z-scores that survive extreme magnitudes. Squaring deviations of values near
# 1e300 overflows and of values near 1e-300 underflows, so the moments are
# taken on values divided by their largest magnitude and scaled back.

#' Mean and population standard deviation of finite values
#' @noRd
scaled_moments <- function(values) {
  values <- values[!is.na(values)]
  if (length(values) == 0L) {
    return(list(center = NaN, scale = NaN))
  }
  largest <- max(abs(values))
  if (largest == 0) {
    return(list(center = 0, scale = 0))
  }
  v <- values / largest
  center <- mean(v)
  list(center = center * largest, scale = sqrt(mean((v - center)^2)) * largest)
}

#' (values - center) / scale, rearranged where the difference could overflow
#' @noRd
zscore <- function(values, center, scale) {
  extreme <- scale < 1e-150 || max(abs(c(values, center)), 0, na.rm = TRUE) > 1e150
  if (extreme) values / scale - center / scale else (values - center) / scale
}
