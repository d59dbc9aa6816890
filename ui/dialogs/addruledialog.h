#pragma once

#include <QDialog>

#include "core/analysis/ruleset.h"

class QComboBox;
class QLabel;
class QLineEdit;

namespace reach {

// "Add rule" from the drill-down: the pattern starts as the kernel's escaped name (an exact
// match) so the user only has to widen it; the label below says whether it still matches.
class AddRuleDialog : public QDialog {
    Q_OBJECT
public:
    AddRuleDialog(const QString& kernelName, Category suggested, QWidget* parent = nullptr);
    // Prefills the family and says why the category was proposed (core proposeRuleCategory).
    void setProposal(const QString& family, const QString& basis);
    Rule rule() const;

    // Escapes every POSIX extended regex metacharacter (the core matches with <regex.h>).
    static QString escapePattern(const QString& name);

private:
    void validate();
    QString m_kernelName;
    QLineEdit* m_pattern;
    QComboBox* m_category;
    QLineEdit* m_family;
    QLabel* m_status;
};

}  // namespace reach
