// devplan plot FILE.pte [--method NAME]... [-o OUT.svg] [--html]
#include <harness/cli/args.h>
#include <harness/commands/command.h>
#include <harness/commands/plan_check.h>
#include <harness/report/plan_svg.h>
#include <runtime_ext/program/program.h>

namespace devplan::harness {
namespace {

constexpr const char* kUsage =
    "usage: devplan plot FILE.pte [--method NAME]... [-o OUT.svg] [--html]\n"
    "  writes the memory-plan picture (SVG, or one HTML page with every method) to OUT, or to\n"
    "  standard output without -o";

}  // namespace

Result<std::string> plot_program(const std::string& file, const std::vector<std::string>& methods,
                                 bool html) {
  DEVPLAN_ASSIGN_OR_RETURN(std::vector<uint8_t> bytes, read_file(file));
  DEVPLAN_ASSIGN_OR_RETURN(Program program,
                           Program::load_from_bytes(Span<const uint8_t>(bytes.data(), bytes.size())));
  std::vector<PlotMethod> plots;
  for (size_t i = 0; i < program.num_methods(); ++i) {
    DEVPLAN_ASSIGN_OR_RETURN(const MethodPlan* plan, program.method_plan_at(i));
    bool wanted = methods.empty();
    for (const std::string& m : methods) wanted |= m == plan->name;
    if (wanted) plots.push_back(PlotMethod{plan, check_method_plan(*plan)});
  }
  for (const std::string& m : methods) {
    if (program.method_status(m).code() == ErrorCode::NotFound) {
      return Error(ErrorCode::NotFound, "the program has no method '" + m + "'");
    }
  }
  return html ? plan_html(file, plots) : plan_svg(file, plots);
}

int plot_command(const Args& args, std::ostream& out, std::ostream& err) {
  const cli::ArgSpec spec = {{"method", cli::OptionKind::Repeated},
                             {"output", cli::OptionKind::Single, 'o'},
                             {"html", cli::OptionKind::Flag}};
  Result<cli::ParsedArgs> parsed = cli::parse_args(spec, args);
  if (!parsed.ok() || parsed->positionals.size() != 1) {
    err << "devplan plot: " << (parsed.ok() ? "expected exactly one FILE" : parsed.error().message())
        << "\n" << kUsage << "\n";
    return cli::kExitUsage;
  }
  const std::string& file = parsed->positionals[0];
  Result<std::string> picture = plot_program(file, parsed->values("method"), parsed->has("html"));
  if (!picture.ok()) {
    err << "devplan plot: " << picture.error().with_context(file).to_string() << "\n";
    return picture.code() == ErrorCode::NotFound ? cli::kExitUsage : cli::kExitError;
  }
  if (!parsed->has("output")) {
    out << *picture;
    return cli::kExitOk;
  }
  Error e = write_file(parsed->value("output"), *picture);
  if (!e.ok()) {
    err << "devplan plot: " << e.to_string() << "\n";
    return cli::kExitError;
  }
  out << "wrote " << parsed->value("output") << "\n";
  return cli::kExitOk;
}

}  // namespace devplan::harness
