#include "Task.h"

#include <stdexcept>

#include "TaskClasses.h"
#include "TaskSurvival.h"
#include "TaskValues.h"

namespace ccforest {

std::unique_ptr<TreeTask> make_task(const Data& data, const TreeOptions& options, const Rules& rules) {
  const bool one_value = !data.is_classification() && !data.is_survival() && data.n_output() == 1;
  if (options.output_bins > 0 && !one_value) {
    throw std::invalid_argument("output_bins is for regression with one output");
  }
  if (data.is_survival()) return std::make_unique<SurvivalTask>(data, options);
  if (data.is_classification()) return std::make_unique<ClassTask>(data);
  return std::make_unique<ValueTask>(data, options, rules);
}

}  // namespace ccforest
