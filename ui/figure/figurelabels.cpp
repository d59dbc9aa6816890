#include "ui/figure/figurelabels.h"

#include <QSet>
#include <QStringList>
#include <algorithm>

namespace reach {

namespace {

struct Parts {
    QString name, tag;
};

Parts splitLabel(const QString& label) {
    const qsizetype newline = label.indexOf(QLatin1Char('\n'));
    if (newline >= 0) {
        return {label.left(newline),
                label.mid(newline + 1).split(QLatin1Char('\n')).join(QStringLiteral(", "))};
    }
    const qsizetype bracket = label.lastIndexOf(QStringLiteral(" ["));
    if (bracket > 0 && label.endsWith(QLatin1Char(']')))
        return {label.left(bracket), label.mid(bracket + 2, label.size() - bracket - 3)};
    return {label, {}};
}

bool fitsAsItIs(const QString& label, const QFontMetricsF& tm, double room, qsizetype capacity) {
    const QStringList lines = label.split(QLatin1Char('\n'));
    if (lines.size() > capacity)
        return false;
    return std::all_of(lines.begin(), lines.end(),
                       [&](const QString& l) { return tm.horizontalAdvance(l) <= room; });
}

// The name on at most `lines` lines of `room`: wrapped at spaces, the last line elided.
QString shortenName(const QString& name, const QFontMetricsF& tm, double room, qsizetype lines,
                    Qt::TextElideMode mode) {
    if (tm.horizontalAdvance(name) <= room || lines <= 1)
        return tm.elidedText(name, mode, room);
    QStringList out{QString()};
    const QStringList words = name.split(QLatin1Char(' '));
    for (qsizetype i = 0; i < words.size(); ++i) {
        const QString joined = out.back().isEmpty() ? words[i] : out.back() + ' ' + words[i];
        if (out.back().isEmpty() || tm.horizontalAdvance(joined) <= room) {
            out.back() = joined;
        } else if (out.size() < lines) {
            out << words[i];
        } else {
            out.back() = joined + ' ' + QStringList(words.mid(i + 1)).join(' ');
            break;
        }
    }
    for (QString& line : out)
        line = tm.elidedText(line.trimmed(), mode, room);
    return out.join(QLatin1Char('\n'));
}

// Words of workload names that papers shorten, longest first (issue 40: "Qwen2.5...raining"
// was cut mid-word where "Qwen2.5-1.5B train" fits).
constexpr std::pair<const char*, const char*> kAbbreviations[] = {
    {"inference", "infer."}, {"Inference", "Infer."}, {"training", "train"},
    {"Training", "Train"},   {"compiled", "comp."},   {"Compiled", "Comp."},
};

// The name in `room` with whole words: as it is; its long words abbreviated; then its first and
// last words (and as many of those between as fit) around an ellipsis, which keeps the words
// that tell "ResNet-50 training" from "ResNet-50 inference". Empty when no such form fits:
// the caller elides letters.
QString abbreviated(const QString& name) {
    QString out = name;
    for (const auto& [word, shorter] : kAbbreviations)
        out.replace(QString::fromLatin1(word), QString::fromLatin1(shorter));
    return out;
}

QString shortenWords(const QString& name, const QFontMetricsF& tm, double room) {
    if (tm.horizontalAdvance(name) <= room)
        return name;
    const QString shorter = abbreviated(name);
    if (tm.horizontalAdvance(shorter) <= room)
        return shorter;
    // Words split after a separator, so the separators stay with the word before them.
    QStringList words;
    QString word;
    auto separator = [](QChar c) {
        return c == QLatin1Char(' ') || c == QLatin1Char('_') || c == QLatin1Char('-');
    };
    for (const QChar c : shorter) {
        word += c;
        if (separator(c))
            words << word, word.clear();
    }
    if (!word.isEmpty())
        words << word;
    if (words.size() < 3)
        return {};
    // Keep the first `head` and the last `kept - head` words, dropping at least one between: the
    // most words that fit, the first words before the last on a tie (a model's name leads).
    const QString ellipsis(QChar(0x2026));
    const qsizetype n = words.size();
    for (qsizetype kept = n - 1; kept >= 2; --kept) {
        for (qsizetype head = kept - 1; head >= 1; --head) {
            QString first = QStringList(words.mid(0, head)).join(QString());
            while (!first.isEmpty() && separator(first.back()))
                first.chop(1);
            // A label keeps its start: its first word when that is a name of seven letters or
            // more ("Qwen2.5...14B train"), else at least its first 8 letters ("R1-Distill...70B",
            // "fp8_scaled_m..." rather than "fp8..."); otherwise letters are elided instead.
            QString firstWord = words.front();
            while (!firstWord.isEmpty() && separator(firstWord.back()))
                firstWord.chop(1);
            if (firstWord.size() < 7 && first.size() < std::min<qsizetype>(8, shorter.size()))
                continue;
            const QString text =
                first + ellipsis + QStringList(words.mid(n - (kept - head))).join(QString());
            if (tm.horizontalAdvance(text) <= room)
                return text;
        }
    }
    return {};
}

QString fitOne(const Parts& p, const QFontMetricsF& tm, double room, qsizetype capacity,
               Qt::TextElideMode mode) {
    if (p.tag.isEmpty())
        return shortenName(p.name, tm, room, capacity, mode);
    if (capacity >= 2) {
        return shortenName(p.name, tm, room, capacity - 1, mode) + QLatin1Char('\n') +
               tm.elidedText(p.tag, Qt::ElideLeft, room);
    }
    // The tag keeps at most 45 % of the line (a name needs letters to be recognised). A tag too
    // long for it keeps its last word whole, the hardware ("[A100]" of "published, A100"), the
    // file or the number that tells rows apart; its other words go (an elided "[..., A100]"
    // read as a cut label). The CSV and the provenance beside the figure have the whole tag.
    const QString tag = QStringLiteral(" [") + p.tag + QLatin1Char(']');
    const QString lastWord =
        QStringLiteral(" [") + p.tag.section(QLatin1Char(' '), -1) + QLatin1Char(']');
    const double tagWidth = std::max(room * 0.45, tm.horizontalAdvance(lastWord));
    QString shownTag = tag;
    if (tm.horizontalAdvance(tag) > tagWidth)
        shownTag =
            tm.horizontalAdvance(lastWord) <= room * 0.7
                ? lastWord
                : QStringLiteral(" [") + tm.elidedText(p.tag + QLatin1Char(']'), Qt::ElideLeft,
                                                       room * 0.7 - tm.horizontalAdvance(" ["));
    const double nameRoom = room - tm.horizontalAdvance(shownTag);
    if (const QString whole = shortenWords(p.name, tm, nameRoom); !whole.isEmpty())
        return whole + shownTag;
    // Letters elided last, from the abbreviated name ("Qwen2.5-1.5B tr..." keeps the model and
    // its size where "Qwen2.5...raining" kept neither).
    return tm.elidedText(abbreviated(p.name), mode, nameRoom) + shownTag;
}

bool allDistinct(const QMap<double, QString>& labels) {
    QSet<QString> seen;
    for (const QString& l : labels) {
        if (seen.contains(l))
            return false;
        seen.insert(l);
    }
    return true;
}

}  // namespace

QMap<double, QString> fitCategoryLabels(const QMap<double, QString>& labels,
                                        const QFontMetricsF& metrics, double room,
                                        qsizetype capacity) {
    capacity = std::max<qsizetype>(1, capacity);
    const bool fit = std::all_of(labels.begin(), labels.end(), [&](const QString& l) {
        return fitsAsItIs(l, metrics, room, capacity);
    });
    if (fit)
        return labels;
    QMap<double, QString> out;
    for (Qt::TextElideMode mode : {Qt::ElideRight, Qt::ElideMiddle, Qt::ElideLeft}) {
        out.clear();
        for (auto it = labels.begin(); it != labels.end(); ++it) {
            out.insert(it.key(),
                       fitsAsItIs(it.value(), metrics, room, capacity)
                           ? it.value()
                           : fitOne(splitLabel(it.value()), metrics, room, capacity, mode));
        }
        if (allDistinct(out))
            return out;
    }
    // Still alike (names that differ only in what no elision keeps): number the look-alikes, in
    // key order; the CSV beside the figure has the full names.
    QMap<QString, int> seen;
    for (auto it = out.begin(); it != out.end(); ++it) {
        const int n = ++seen[it.value()];
        if (n < 2)
            continue;
        const QString suffix = QStringLiteral(" (%1)").arg(n);
        it.value() = fitOne(splitLabel(labels.value(it.key())), metrics,
                            room - metrics.horizontalAdvance(suffix), capacity, Qt::ElideLeft) +
                     suffix;
    }
    return out;
}

QString wrapToWidth(const QString& text, const QFontMetricsF& metrics, double width) {
    QStringList out;
    for (const QString& paragraph : text.split(QLatin1Char('\n'))) {
        QString line;
        for (const QString& word : paragraph.split(QLatin1Char(' '), Qt::SkipEmptyParts)) {
            const QString longer = line.isEmpty() ? word : line + QLatin1Char(' ') + word;
            if (!line.isEmpty() && metrics.horizontalAdvance(longer) > width) {
                out << line;
                line = word;
            } else {
                line = longer;
            }
        }
        out << line;
    }
    return out.join(QLatin1Char('\n'));
}

}  // namespace reach
