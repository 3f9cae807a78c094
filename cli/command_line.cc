#include "cli/command_line.h"

#include <CLI/CLI.hpp>

#include <algorithm>
#include <cassert>
#include <ostream>

#include "base/input_error.h"
#include "cli/commands.h"
#include "cli/cpu_quota.h"
#include "cli/values.h"

namespace leasesim::cli {

CommandLine::CommandLine(const std::string& command, const std::string& description)
    : app_(std::make_unique<CLI::App>(description, "leasesim " + command)), command_(command) {
  app_->set_help_flag("-h,--help", "Print this help and exit");
  // Words after the options are positionals, never swallowed by an option.
  app_->allow_extras(false);
  app_->get_formatter()->column_width(34);
  app_->get_formatter()->label("Usage", "usage");
}

CommandLine::~CommandLine() = default;

std::string CommandLine::LongName(const std::string& flags) {
  // The first long name: "--protocol,--variant" is read as "--protocol".
  const std::size_t at = flags.find("--");
  assert(at != std::string::npos);  // every option has a long name
  return flags.substr(at, flags.find(',', at) - at);
}

CommandLine& CommandLine::Positional(const std::string& name, const std::string& help, bool required, bool many) {
  CLI::Option* option = many ? app_->add_option(name, positional_, help)
                             : app_->add_option_function<std::string>(
                                   name, [this](const std::string& word) { positional_.push_back(word); }, help);
  option->type_name("");
  if (required) option->required();
  last_ = nullptr;
  return *this;
}

CommandLine& CommandLine::Added(CLI::Option* option, const std::string& flags, const std::string& value_name) {
  option->type_name(value_name);
  single_valued_.push_back(LongName(flags));
  last_ = option;
  last_names_ = {LongName(flags), value_name};
  return *this;
}

CommandLine& CommandLine::Option(const std::string& flags, const std::string& value_name, const std::string& help,
                                 std::optional<std::string>& value) {
  return Added(app_->add_option_function<std::string>(flags, [&value](const std::string& text) { value = text; }, help),
               flags, value_name);
}

CommandLine& CommandLine::Option(const std::string& flags, const std::string& value_name, const std::string& help,
                                 std::string& value) {
  return Added(app_->add_option_function<std::string>(flags, [&value](const std::string& text) { value = text; }, help),
               flags, value_name);
}

CommandLine& CommandLine::Required() {
  assert(last_ != nullptr);  // follows an Option or Integer
  last_->required();
  required_.push_back(last_names_);
  last_ = nullptr;
  return *this;
}

CommandLine& CommandLine::BoundInteger(const std::string& flags, const std::string& value_name,
                                       const std::string& help, std::int64_t min, std::int64_t max,
                                       std::function<void(std::int64_t)> set) {
  const std::string flag = LongName(flags);
  const auto read = [flag, min, max, set = std::move(set)](const std::string& text) {
    std::int64_t value = 0;
    if (!ParseNumber(text, value) || value < min || value > max) {
      throw CLI::ValidationError(flag, "must be a whole number from " + std::to_string(min) + " to " +
                                           std::to_string(max) + " (got \"" + text + "\")");
    }
    set(value);
  };
  return Added(app_->add_option_function<std::string>(flags, read, help), flags, value_name);
}

CommandLine& CommandLine::Jobs(int& jobs) {
  jobs = DefaultJobs(kJobsMax);
  return Integer("-j,--jobs", "N",
                 "Worker threads, 1.." + std::to_string(kJobsMax) +
                     " (default: the CPUs this process may use, its container's quota included; the output is "
                     "the same for any N)",
                 jobs, 1, kJobsMax);
}

CommandLine& CommandLine::Repeatable(const std::string& flags, const std::string& value_name, const std::string& help,
                                     std::vector<std::string>& values) {
  app_->add_option(flags, values, help + " (may be repeated)")
      ->type_name(value_name)
      ->expected(1)
      ->multi_option_policy(CLI::MultiOptionPolicy::TakeAll);
  last_ = nullptr;
  return *this;
}

CommandLine& CommandLine::Switch(const std::string& flags, const std::string& help, bool& on) {
  app_->add_flag(flags, on, help);
  last_ = nullptr;
  return *this;
}

CommandLine& CommandLine::Footer(const std::string& text) {
  app_->footer(text);
  return *this;
}

std::optional<int> CommandLine::Parse(const std::vector<std::string>& words, std::ostream& out, std::ostream& err) {
  const auto usage_error = [&](const std::string& text) {
    err << "leasesim " << command_ << ": " << text << "\n(leasesim " << command_ << " --help lists the options)\n";
    return kExitBadInput;
  };
  std::vector<std::string> reversed(words.rbegin(), words.rend());  // CLI11 takes them last first
  try {
    app_->parse(reversed);
  } catch (const CLI::CallForHelp&) {
    out << Help();
    return kExitOk;
  } catch (const CLI::ExtrasError&) {
    // A word no option or positional takes: named as the user wrote it.
    const std::vector<std::string> left = app_->remaining();
    const std::string word = left.empty() ? std::string() : left.front();
    return usage_error((word.starts_with("-") ? "unknown option " : "unexpected argument ") + word);
  } catch (const CLI::RequiredError& error) {
    for (const RequiredOption& option : required_) {
      if (app_->get_option(option.flag)->count() > 0) continue;
      return usage_error(base::InputError{option.flag, "is required (" + option.value_name + ")"}.ToString());
    }
    return usage_error(error.what());
  } catch (const CLI::ParseError& error) {
    for (const std::string& flag : single_valued_) {
      if (app_->get_option(flag)->count() <= 1) continue;
      return usage_error(flag + " is given twice");
    }
    return usage_error(error.what());
  }
  return std::nullopt;
}

std::string CommandLine::Help() const { return app_->help(); }

}  // namespace leasesim::cli
