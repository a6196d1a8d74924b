DROP TABLE exact_distributions;
