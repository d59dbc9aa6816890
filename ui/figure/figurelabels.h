#pragma once

#include <QFontMetricsF>
#include <QMap>
#include <QString>

namespace reach {

// Category labels of an exported figure (the workload names of a bar chart) made to fit their
// room: at most `room` points wide and `capacity` lines each. A label is a name and, optionally,
// a tag that tells rows of the same name apart (the hardware and origin: "name\ntag" or
// "name [tag]"). Labels that fit stay as they are; otherwise the tag is kept whole (on its own
// line when two fit, else in brackets after the name) and only the name is shortened: wrapped at
// spaces while lines are left, then elided, at its end or, when that makes two labels alike, in
// its middle or at its start. Labels that would still read alike get a number. No two labels
// that differ come out equal.
QMap<double, QString> fitCategoryLabels(const QMap<double, QString>& labels,
                                        const QFontMetricsF& metrics, double room,
                                        qsizetype capacity);

// Text broken into lines at spaces so that each line is at most `width` wide where a word
// allows (a single longer word keeps its own line); existing line breaks are kept. For captions
// and legend entries laid out on a figure's page.
QString wrapToWidth(const QString& text, const QFontMetricsF& metrics, double width);

}  // namespace reach
