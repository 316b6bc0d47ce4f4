// The agent's jobs run on the scheduler the control plane uses too.
export { scheduleJob, type ScheduledJob } from '@devplein/server-kit/scheduled-job';
