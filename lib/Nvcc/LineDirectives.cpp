//===- LineDirectives.cpp - Point a rewritten file at the original --------===//
#include "Nvcc/LineDirectives.h"

#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringExtras.h"

#include <algorithm>

using namespace gpumerge;
using namespace gpumerge::nvcc;

namespace {

std::vector<llvm::StringRef> splitLines(llvm::StringRef Text) {
  std::vector<llvm::StringRef> Lines;
  while (!Text.empty()) {
    auto [Line, Rest] = Text.split('\n');
    Lines.push_back(Line.rtrim('\r'));
    Text = Rest;
  }
  return Lines;
}

/// Myers' O((N+M)·D) diff: the pairs (i, j) of equal lines on a shortest
/// edit script. D is small here (the kernels gpumerge rewrote); each round's
/// frontier is kept for the walk back, O(D²) in all.
std::vector<std::pair<size_t, size_t>>
commonLines(const std::vector<llvm::StringRef> &A,
            const std::vector<llvm::StringRef> &B) {
  const long N = long(A.size()), M = long(B.size()), Max = N + M;
  std::vector<long> V(2 * size_t(Max) + 3, 0);
  auto At = [&](long K) -> long & { return V[size_t(K + Max + 1)]; };
  // Trace[D][K + D]: the furthest X on diagonal K after round D.
  std::vector<std::vector<long>> Trace;
  for (long D = 0; D <= Max; ++D) {
    bool Done = false;
    for (long K = -D; K <= D; K += 2) {
      long X = (K == -D || (K != D && At(K - 1) < At(K + 1))) ? At(K + 1)
                                                              : At(K - 1) + 1;
      long Y = X - K;
      while (X < N && Y < M && A[size_t(X)] == B[size_t(Y)])
        ++X, ++Y;
      At(K) = X;
      if (X >= N && Y >= M)
        Done = true;
    }
    Trace.emplace_back(V.begin() + (Max + 1 - D), V.begin() + (Max + 2 + D));
    if (Done)
      break;
  }
  // Walk back through the rounds, collecting the diagonal (equal) moves.
  std::vector<std::pair<size_t, size_t>> Pairs;
  long X = N, Y = M;
  for (long D = long(Trace.size()) - 1; D >= 0; --D) {
    long K = X - Y, StartX = 0, PrevK = K;
    if (D > 0) {
      const std::vector<long> &Prev = Trace[size_t(D - 1)];
      auto PrevAt = [&](long PK) { return Prev[size_t(PK + D - 1)]; };
      PrevK = (K == -D || (K != D && PrevAt(K - 1) < PrevAt(K + 1))) ? K + 1
                                                                     : K - 1;
      long PrevX = PrevAt(PrevK);
      StartX = PrevK == K + 1 ? PrevX : PrevX + 1; // after the edit
      while (X > StartX) {
        --X, --Y;
        Pairs.push_back({size_t(X), size_t(Y)});
      }
      X = PrevX;
      Y = PrevX - PrevK;
    } else {
      while (X > 0) {
        --X, --Y;
        Pairs.push_back({size_t(X), size_t(Y)});
      }
    }
  }
  std::reverse(Pairs.begin(), Pairs.end());
  return Pairs;
}

bool trivial(llvm::StringRef Line) { return Line.trim().size() <= 2; }

/// For each line of \p Text: may a directive go right before it? Not inside
/// a block comment or raw string, nor after a backslash continuation.
std::vector<bool> directiveAllowed(const std::vector<llvm::StringRef> &Lines) {
  std::vector<bool> Allowed(Lines.size(), true);
  bool InBlock = false, InRaw = false, Continued = false;
  std::string RawEnd;
  for (size_t L = 0; L < Lines.size(); ++L) {
    Allowed[L] = !InBlock && !InRaw && !Continued;
    llvm::StringRef S = Lines[L];
    char Quote = 0; // inside "..." or '...' (ends at the line's end)
    for (size_t I = 0; I < S.size(); ++I) {
      if (InBlock) {
        if (S.substr(I).startswith("*/"))
          InBlock = false, ++I;
        continue;
      }
      if (InRaw) {
        if (S.substr(I).startswith(RawEnd))
          InRaw = false, I += RawEnd.size() - 1;
        continue;
      }
      if (Quote) {
        if (S[I] == '\\')
          ++I;
        else if (S[I] == Quote)
          Quote = 0;
        continue;
      }
      if (S.substr(I).startswith("//"))
        break;
      if (S.substr(I).startswith("/*")) {
        InBlock = true, ++I;
        continue;
      }
      if (S[I] == 'R' && I + 1 < S.size() && S[I + 1] == '"' &&
          (I == 0 || !(llvm::isAlnum(S[I - 1]) || S[I - 1] == '_'))) {
        size_t Open = S.find('(', I + 2);
        if (Open != llvm::StringRef::npos) {
          RawEnd = (")" + S.slice(I + 2, Open) + "\"").str();
          InRaw = true;
          I = Open;
          continue;
        }
      }
      if (S[I] == '"' || S[I] == '\'')
        Quote = S[I];
    }
    Continued = S.endswith("\\");
  }
  return Allowed;
}

std::string quoted(llvm::StringRef Name) {
  std::string Out = "\"";
  for (char C : Name) {
    if (C == '\\' || C == '"')
      Out += '\\';
    Out += C;
  }
  return Out + "\"";
}

} // namespace

std::vector<unsigned> nvcc::matchLines(llvm::StringRef Original,
                                       llvm::StringRef Rewritten) {
  std::vector<llvm::StringRef> A = splitLines(Original),
                               B = splitLines(Rewritten);
  std::vector<unsigned> Match(B.size(), 0);
  for (auto [I, J] : commonLines(A, B))
    Match[J] = unsigned(I + 1);
  // A lone `}` or blank line of generated code that happens to equal one of
  // the original's is not the original's: short runs of trivial lines
  // between generated lines are generated too.
  for (size_t J = 0; J < B.size();) {
    if (!Match[J]) {
      ++J;
      continue;
    }
    size_t End = J;
    while (End < B.size() && Match[End] &&
           (End == J || Match[End] == Match[End - 1] + 1))
      ++End;
    bool Between = J > 0 && !Match[J - 1] && End < B.size() && !Match[End];
    bool AllTrivial = std::all_of(B.begin() + long(J), B.begin() + long(End),
                                  [](llvm::StringRef L) { return trivial(L); });
    if (Between && AllTrivial && End - J <= 2)
      std::fill(Match.begin() + long(J), Match.begin() + long(End), 0);
    J = End;
  }
  return Match;
}

std::string nvcc::addLineDirectives(llvm::StringRef Original,
                                    llvm::StringRef Rewritten,
                                    llvm::StringRef OriginalName) {
  std::vector<llvm::StringRef> B = splitLines(Rewritten);
  std::vector<unsigned> Match = matchLines(Original, Rewritten);
  std::vector<bool> Allowed = directiveAllowed(B);

  // The line each rewritten line stands for.
  std::vector<unsigned> Target(B.size(), 1);
  for (size_t J = 0; J < B.size();) {
    if (Match[J]) {
      Target[J] = Match[J];
      ++J;
      continue;
    }
    size_t End = J;
    while (End < B.size() && !Match[End])
      ++End;
    unsigned Prev = J > 0 ? Match[J - 1] : 0;
    unsigned Next = End < B.size() ? Match[End] : 0;
    // Replaced lines: the first of them; inserted ones: the line before.
    unsigned T = Next > Prev + 1 || (Prev == 0 && Next == 0) ? Prev + 1
                 : Prev                                      ? Prev
                                                             : 1;
    std::fill(Target.begin() + long(J), Target.begin() + long(End), T);
    J = End;
  }

  std::string Out;
  Out.reserve(Rewritten.size() + Rewritten.size() / 4);
  std::string Name = quoted(OriginalName);
  unsigned Presumed = 0; // the line the compiler gives the next line
  for (size_t J = 0; J < B.size(); ++J) {
    if ((J == 0 || Presumed != Target[J]) && Allowed[J]) {
      Out += "#line " + std::to_string(Target[J]) + " " + Name + "\n";
      Presumed = Target[J];
    }
    Out += B[J];
    Out += '\n';
    ++Presumed;
  }
  return Out;
}
