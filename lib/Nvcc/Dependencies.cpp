//===- Dependencies.cpp - Includes and dependency files of a copy ---------===//
#include "Nvcc/Dependencies.h"

#include "llvm/ADT/SmallString.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"

using namespace gpumerge;
using namespace gpumerge::nvcc;

std::string nvcc::anchorQuotedIncludes(llvm::StringRef Text,
                                       llvm::StringRef OriginalDir) {
  std::string Out;
  Out.reserve(Text.size());
  while (!Text.empty()) {
    auto [Line, Rest] = Text.split('\n');
    bool HadNewline = Text.size() > Line.size();
    Text = Rest;
    // #  include "name"  (spacing as the preprocessor allows it)
    llvm::StringRef S = Line.ltrim();
    size_t QuoteAt = llvm::StringRef::npos;
    if (S.consume_front("#")) {
      S = S.ltrim();
      if (S.consume_front("include") && S.ltrim().startswith("\""))
        QuoteAt = Line.size() - S.ltrim().size();
    }
    if (QuoteAt != llvm::StringRef::npos) {
      llvm::StringRef Name = Line.substr(QuoteAt + 1);
      size_t Close = Name.find('"');
      Name = Name.take_front(Close);
      llvm::SmallString<256> Resolved(OriginalDir);
      llvm::sys::path::append(Resolved, Name);
      if (Close != llvm::StringRef::npos && !Name.empty() &&
          !llvm::sys::path::is_absolute(Name) &&
          llvm::sys::fs::is_regular_file(Resolved)) {
        // The directory as given plus the name as written: gcc writes the
        // dependency the same way, so it can be spelled back.
        Out += Line.take_front(QuoteAt + 1);
        Out += (OriginalDir + "/" + Name).str();
        Out += Line.drop_front(QuoteAt + 1 + Name.size());
        if (HadNewline)
          Out += '\n';
        continue;
      }
    }
    Out += Line;
    if (HadNewline)
      Out += '\n';
  }
  return Out;
}

namespace {
/// A dependency file's path, unescaped (`\ ` and `$$` as make writes them).
std::string unescape(llvm::StringRef Token) {
  std::string Out;
  for (size_t I = 0; I < Token.size(); ++I) {
    if (Token[I] == '\\' && I + 1 < Token.size() &&
        (Token[I + 1] == ' ' || Token[I + 1] == '#')) {
      Out += Token[++I];
    } else if (Token[I] == '$' && I + 1 < Token.size() && Token[I + 1] == '$') {
      Out += '$';
      ++I;
    } else {
      Out += Token[I];
    }
  }
  return Out;
}

std::string escape(llvm::StringRef Path) {
  std::string Out;
  for (char C : Path) {
    if (C == ' ' || C == '#')
      Out += '\\';
    if (C == '$')
      Out += '$';
    Out += C;
  }
  return Out;
}
} // namespace

std::string nvcc::rewriteDependencyPaths(llvm::StringRef Deps,
                                         llvm::ArrayRef<PathRewrite> Rewrites) {
  std::string Out;
  size_t I = 0;
  while (I < Deps.size()) {
    char C = Deps[I];
    // Separators: whitespace, a line continuation, the target's colon.
    if (C == ' ' || C == '\t' || C == '\n' || C == '\r' ||
        (C == '\\' && I + 1 < Deps.size() &&
         (Deps[I + 1] == '\n' || Deps[I + 1] == '\r'))) {
      Out += C;
      ++I;
      continue;
    }
    size_t Start = I;
    while (I < Deps.size()) {
      char D = Deps[I];
      if (D == '\\' && I + 1 < Deps.size() &&
          (Deps[I + 1] == ' ' || Deps[I + 1] == '#')) {
        I += 2;
        continue;
      }
      if (D == ' ' || D == '\t' || D == '\n' || D == '\r')
        break;
      if (D == '\\' && I + 1 < Deps.size() &&
          (Deps[I + 1] == '\n' || Deps[I + 1] == '\r'))
        break;
      ++I;
    }
    llvm::StringRef Token = Deps.slice(Start, I);
    // "target:" keeps its colon outside the path.
    llvm::StringRef Colon;
    if (Token.endswith(":")) {
      Colon = Token.take_back(1);
      Token = Token.drop_back(1);
    }
    std::string Path = unescape(Token);
    std::string New = Path;
    for (const PathRewrite &R : Rewrites) {
      llvm::StringRef P(Path);
      if (P == R.From) {
        New = R.To;
        break;
      }
      if (R.Prefix && P.startswith(R.From + "/")) {
        llvm::StringRef Tail = P.drop_front(R.From.size() + 1);
        New = R.To.empty() ? Tail.str() : R.To + "/" + Tail.str();
        break;
      }
    }
    Out += New == Path ? Token.str() : escape(New);
    Out += Colon;
  }
  return Out;
}
