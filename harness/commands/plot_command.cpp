// devplan plot FILE.pte [--method NAME]... [-o OUT.svg] [--html] [--trace OUT.json]
#include <harness/commands/plot_command.h>
#include <harness/engine/program_image.h>
#include <harness/options/command_options.h>
#include <harness/output/chrome_trace.h>
#include <harness/output/output_file.h>
#include <harness/output/plan_svg.h>
#include <harness/services/plot.h>
#include <runtime_ext/analysis/plan_check.h>
#include <runtime_ext/program/program.h>

namespace devplan::harness {
namespace {

struct PlotPictures {
  std::string picture;  // SVG or HTML
  std::string trace;    // Chrome trace-event JSON
};

Result<PlotPictures> draw_program(const std::string& file, const std::vector<std::string>& methods,
                                  bool html) {
  DEVPLAN_ASSIGN_OR_RETURN(Program program, load_program_file(file));
  DEVPLAN_ASSIGN_OR_RETURN(std::vector<PlotMethod> plots, plot_methods(program, methods));
  PlotPictures pictures;
  pictures.picture = html ? plan_html(file, plots) : plan_svg(file, plots);
  pictures.trace = plan_trace(file, plots);
  return pictures;
}

}  // namespace

int plot_command(const Args& args, std::ostream& out, std::ostream& err) {
  std::string file, output, trace;
  std::vector<std::string> methods;
  bool html = false;
  std::unique_ptr<CLI::App> app = cli::make_command_app(
      "plot",
      "Draw the memory plan: one rectangle per planned tensor, lifetime by bytes. Writes SVG (or "
      "one HTML page with every method) to OUT, or to standard output without -o.");
  add_program_argument(*app, file);
  cli::add_repeated_option(*app, "--method", methods, "draw only this method (repeatable)");
  app->add_option("-o,--output", output, "write the picture here")->type_name("OUT.svg");
  app->add_flag("--html", html, "one HTML page with every method instead of SVG");
  app->add_option("--trace", trace,
                  "also write the tensor lifetimes per buffer as Chrome trace-event JSON "
                  "(Perfetto, chrome://tracing)")
      ->type_name("OUT.json");
  if (std::optional<int> done = cli::parse_command_line(*app, args, out, err)) return *done;
  Result<PlotPictures> pictures = draw_program(file, methods, html);
  if (!pictures.ok()) {
    err << "devplan plot: " << pictures.error().with_context(file).to_string() << "\n";
    return pictures.code() == ErrorCode::NotFound ? cli::kExitUsage : cli::kExitError;
  }
  if (!trace.empty() && !write_output("plot", trace, pictures->trace, err)) return cli::kExitError;
  if (output.empty()) {  // the picture is the standard output
    out << pictures->picture;
    return cli::kExitOk;
  }
  if (!write_output("plot", output, pictures->picture, err)) return cli::kExitError;
  out << "wrote " << output << "\n";
  if (!trace.empty()) out << "wrote " << trace << "\n";
  return cli::kExitOk;
}

}  // namespace devplan::harness
