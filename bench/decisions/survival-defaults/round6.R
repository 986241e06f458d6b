# Round 6 (issue 38, second session): residual periods by the node's events.
# A node fits its CCA against its martingale residuals over three periods
# only when it has at least m event rows per period (3 m in all), else
# against the whole residual (one period). Measurement switch: the
# environment variable CCFOREST_SURV_MIN_PERIOD_EVENTS, read by the build
# of commit c11e9a9 only, removed after.
period_events <- function(m) {
  function(train) {
    Sys.setenv(CCFOREST_SURV_MIN_PERIOD_EVENTS = m)
    list()
  }
}
list(
  default = list(args = period_events(0)),
  periods_m10 = list(args = period_events(10)),
  periods_m25 = list(args = period_events(25))
)
