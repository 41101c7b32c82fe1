//===- Pragmas.cpp - #pragma gpumerge hints -------------------------------===//
#include "Frontend/Pragmas.h"

#include "llvm/ADT/SmallVector.h"
#include "llvm/Support/FormatVariadic.h"

namespace gpumerge {

static llvm::Error malformed(llvm::StringRef File, unsigned Line,
                             llvm::StringRef Why) {
  return llvm::createStringError(
      llvm::inconvertibleErrorCode(),
      llvm::formatv("{0}:{1}: error: malformed '#pragma gpumerge': {2}", File,
                    Line, Why)
          .str());
}

llvm::Expected<std::vector<PragmaHints>> scanPragmas(llvm::StringRef Source,
                                                     llvm::StringRef FileName) {
  std::vector<PragmaHints> Result;
  llvm::SmallVector<llvm::StringRef, 0> Lines;
  Source.split(Lines, '\n');
  for (unsigned I = 0; I < Lines.size(); ++I) {
    llvm::StringRef L = Lines[I].trim();
    if (!L.consume_front("#"))
      continue;
    L = L.ltrim();
    if (!L.consume_front("pragma"))
      continue;
    L = L.ltrim();
    if (!L.consume_front("gpumerge"))
      continue;
    unsigned LineNo = I + 1;
    PragmaHints H;
    H.Line = LineNo;
    L = L.trim();
    while (!L.empty()) {
      size_t Open = L.find('(');
      size_t Close = L.find(')');
      if (Open == llvm::StringRef::npos || Close == llvm::StringRef::npos ||
          Close < Open)
        return malformed(FileName, LineNo,
                         "expected 'size(...)' or "
                         "'output(...)'");
      llvm::StringRef Clause = L.substr(0, Open).trim();
      llvm::StringRef Args = L.substr(Open + 1, Close - Open - 1);
      L = L.substr(Close + 1).trim();
      llvm::SmallVector<llvm::StringRef, 4> Items;
      Args.split(Items, ',', -1, false);
      if (Clause == "size") {
        for (llvm::StringRef Item : Items) {
          auto [Name, Value] = Item.split('=');
          std::int64_t V;
          if (Name.trim().empty() || Value.trim().getAsInteger(10, V) || V <= 0)
            return malformed(FileName, LineNo,
                             "size needs name=positive-integer, got '" +
                                 Item.trim().str() + "'");
          H.Sizes[Name.trim().str()] = V;
        }
      } else if (Clause == "output") {
        for (llvm::StringRef Item : Items)
          H.Outputs.push_back(Item.trim().str());
      } else {
        return malformed(FileName, LineNo,
                         "unknown clause '" + Clause.str() + "'");
      }
    }
    Result.push_back(std::move(H));
  }
  return Result;
}

} // namespace gpumerge
