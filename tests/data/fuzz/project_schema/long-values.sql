UPDATE kernels SET name = printf('%.*c', 60000, 'x'); UPDATE rule_sets SET json = '[[[[[[[[[[';
