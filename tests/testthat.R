library(testthat)
library(ccforest)

test_check("ccforest")
