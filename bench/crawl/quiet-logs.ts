// The service's logger reads LOG_LEVEL once, when first loaded: the benchmark imports this first.
process.env.LOG_LEVEL = 'silent';
