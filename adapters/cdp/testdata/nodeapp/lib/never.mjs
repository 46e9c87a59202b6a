// Never imported by main.mjs: reconciliation reports it not observed.
export const unused = true;
