//===- BatchSummary.cpp - What a batch came to, counted -------------------===//
#include "Driver/BatchSummary.h"

#include "llvm/Support/FormatVariadic.h"

#include <algorithm>

namespace gpumerge {

std::string exitLabel(int Code) {
  switch (Code) {
  case ExitOk:
    return "ok";
  case ExitBadInput:
    return "bad input (exit 1)";
  case ExitUsage:
    return "refused or usage error (exit 2)";
  case ExitMismatch:
    return "verify mismatch (exit 3)";
  case ExitInternal:
    return "internal error (exit 4)";
  default:
    return "exit " + std::to_string(Code);
  }
}

std::string reasonGroup(llvm::StringRef Reason) {
  size_t Cut = Reason.size();
  for (llvm::StringRef Stop : {" (", ": ", "; ", " at line "})
    Cut = std::min(Cut, Reason.find(Stop));
  return Reason.take_front(Cut).trim().str();
}

BatchTally tallyBatch(const std::vector<FileOutcome> &Files,
                      const std::vector<NotTaken> &Left) {
  BatchTally T;
  for (const NotTaken &N : Left)
    ++T.NotTaken[N.Why];
  for (const FileOutcome &F : Files) {
    ++T.Files;
    T.FilesByExit[F.Exit].push_back(F.Path);
    if (!F.Report)
      continue;
    if (const llvm::json::Array *Helpers = F.Report->getArray("helpers"))
      T.HelpersPassedThrough += Helpers->size();
    const llvm::json::Array *Kernels = F.Report->getArray("kernels");
    if (!Kernels)
      continue;
    for (const llvm::json::Value &KV : *Kernels) {
      const llvm::json::Object *K = KV.getAsObject();
      if (!K)
        continue;
      ++T.Kernels;
      const llvm::json::Array *Variants = K->getArray("variants");
      if (!Variants)
        continue; // --analyze
      for (const llvm::json::Value &VV : *Variants) {
        const llvm::json::Object *V = VV.getAsObject();
        if (!V)
          continue;
        ++T.Variants;
        llvm::StringRef Status = V->getString("status").value_or("");
        if (Status == "optimized")
          ++T.Optimized;
        else if (Status == "split")
          ++T.Split;
        else {
          ++T.PassedThrough;
          ++T.PassedThroughBy[reasonGroup(
              V->getString("reason").value_or("(no reason given)"))];
        }
        if (auto Verify = V->getString("verify"))
          ++T.Verify[Verify->str()];
        if (const llvm::json::Array *Skipped = V->getArray("not_applied"))
          if (llvm::any_of(*Skipped, [](const llvm::json::Value &S) {
                const llvm::json::Object *O = S.getAsObject();
                return O && O->getString("reason").value_or("").startswith(
                                "internal error");
              }))
            ++T.InternalErrors;
      }
    }
  }
  return T;
}

void printBatchSummary(const BatchTally &T, double Seconds, unsigned Workers,
                       llvm::raw_ostream &OS) {
  auto Row = [&](unsigned Indent, llvm::StringRef Label, unsigned N,
                 llvm::StringRef Note = "") {
    std::string L = std::string(Indent, ' ') + Label.str();
    OS << llvm::formatv("  {0,-44} {1,5}", L, N);
    if (!Note.empty())
      OS << "   " << Note;
    OS << "\n";
  };
  // A total, then what it is made of.
  auto Breakdown = [&](llvm::StringRef Label,
                       const std::map<std::string, unsigned> &By) {
    unsigned Total = 0;
    for (const auto &[Why, N] : By)
      Total += N;
    Row(0, Label, Total);
    for (const auto &[Why, N] : By)
      Row(2, Why, N);
  };
  OS << "batch summary:\n";
  Row(0, "files taken", T.Files);
  for (const auto &[Code, Paths] : T.FilesByExit) {
    // The files that failed are named (their messages are above); the ok
    // ones would only repeat the list.
    std::string Note;
    constexpr size_t Named = 5; // a row, not a page: the rest are counted
    if (Code != ExitOk) {
      for (size_t I = 0; I < Paths.size() && I < Named; ++I)
        Note += (I ? ", " : "") + Paths[I];
      if (Paths.size() > Named)
        Note += llvm::formatv(" and {0} more", Paths.size() - Named).str();
    }
    Row(2, exitLabel(Code), Paths.size(), Note);
  }
  Breakdown("files not taken", T.NotTaken);
  Row(0, "kernels", T.Kernels);
  if (T.HelpersPassedThrough)
    Row(0, "helper functions passed through", T.HelpersPassedThrough);
  Row(0, "kernel variants", T.Variants);
  Row(2, "optimized", T.Optimized);
  if (T.Split)
    Row(2, "split at global barriers", T.Split);
  Row(2, "passed through", T.PassedThrough);
  for (const auto &[Why, N] : T.PassedThroughBy)
    Row(4, Why, N);
  if (!T.Verify.empty())
    Breakdown("verified variants", T.Verify);
  Row(0, "internal errors (a gpumerge bug)", T.InternalErrors);
  OS << llvm::formatv("  wall time {0:f2} s ({1} worker{2})\n", Seconds,
                      Workers, Workers == 1 ? "" : "s");
}

llvm::json::Object batchSummaryJson(const BatchTally &T, double Seconds,
                                    unsigned Workers) {
  llvm::json::Object Files{{"taken", T.Files}};
  for (const auto &[Code, Paths] : T.FilesByExit)
    Files[exitLabel(Code)] = Paths.size();
  llvm::json::Object NotTaken;
  for (const auto &[Why, N] : T.NotTaken)
    NotTaken[Why] = N;
  llvm::json::Object By;
  for (const auto &[Why, N] : T.PassedThroughBy)
    By[Why] = N;
  llvm::json::Object Verify;
  for (const auto &[S, N] : T.Verify)
    Verify[S] = N;
  return llvm::json::Object{
      {"files", std::move(Files)},
      {"not_taken", std::move(NotTaken)},
      {"kernels", T.Kernels},
      {"helpers_passed_through", T.HelpersPassedThrough},
      {"variants",
       llvm::json::Object{{"total", T.Variants},
                          {"optimized", T.Optimized},
                          {"split", T.Split},
                          {"passed_through", T.PassedThrough},
                          {"passed_through_by_reason", std::move(By)}}},
      {"verify", std::move(Verify)},
      {"internal_errors", T.InternalErrors},
      {"wall_seconds", Seconds},
      {"workers", Workers}};
}

} // namespace gpumerge
