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

#' (values - center) / scale, rearranged for the values whose difference
#' overflows. The choice is made value by value, from that value and the
#' stored statistics only: a row's z-scores, and so its prediction, never
#' depend on the other rows it arrives with.
#' @noRd
zscore <- function(values, center, scale) {
  z <- (values - center) / scale
  rearrange <- which(!is.finite(z) & is.finite(values))
  if (length(rearrange) > 0L) {
    z[rearrange] <- values[rearrange] / scale - center / scale
  }
  z
}
