# Round 5 (splits 6-13, as round 4, whose aorsf and default rows it is read
# with): a Cox model's Newton step at beta = 0 as the node's direction
# (aorsf's kind), instead of the canonical directions, or first among them.
list(
  newton = list(args = list(), options = list(ccforest.survival_newton = 1L)),
  newton_cca = list(args = list(), options = list(ccforest.survival_newton = 2L)),
  newton_cca2 = list(args = list(max_directions = 3L), options = list(ccforest.survival_newton = 2L))
)
