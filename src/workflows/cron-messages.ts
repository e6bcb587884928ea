import { defineSignal } from '@temporalio/workflow';
import type { CronCommand, CronReply } from '../common/cron';

/** A turn's CronCreate/CronList/CronDelete call, to its session (answered by {@link cronReplySignal}). */
export const cronCommandSignal = defineSignal<[CronCommand]>('cronCommand');
/** The session's answer to a {@link cronCommandSignal}, to the turn that asked. */
export const cronReplySignal = defineSignal<[CronReply]>('cronReply');
