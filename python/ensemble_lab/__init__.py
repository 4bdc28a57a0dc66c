# SPDX-License-Identifier: GPL-3.0-or-later
"""EnsembleLab's runs in PyTorch.

    import ensemble_lab
    run = ensemble_lab.load_run("~/.local/share/ensemble-lab/runs/<run>")
    run.members       # torch.nn.Modules with the checkpoint's weights
    run.optimizers    # torch.optim.SGD each, with the run's momentum and weight decay, the rate of
                      # its next step (learning_rate_at) and the checkpoint's buffers: training goes on
    ensemble = ensemble_lab.Ensemble(run.members)
    probabilities = ensemble(images)   # the mean of the members' softmax probabilities

The models' state_dict keys are EnsembleLab's checkpoint keys, so load_state_dict is strict.
"""
from ensemble_lab.models import Cnn, Ensemble, LeNet, ResNet18, make_model
from ensemble_lab.data import load_split
from ensemble_lab.run import Run, learning_rate_at, load_run, model_for_state, pytorch_optimizer_state, sgd_for

__all__ = ["Cnn", "Ensemble", "LeNet", "ResNet18", "Run", "learning_rate_at", "load_run", "load_split", "make_model",
           "model_for_state", "pytorch_optimizer_state", "sgd_for"]
__version__ = "0.1.0"
